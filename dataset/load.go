package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/endpoint"
)

// Recorder records the blocks a load has finished, so that a later run
// can skip them (dataset/output's Checkpoint keeps them in a file).
type Recorder interface {
	// Done records block seq as written.
	Done(seq int)
	// Flush makes what Done recorded durable.
	Flush() error
}

// The load sink writes the population to a table with BatchWriteItem:
// batches of 25 puts, a bounded number in flight, the UnprocessedItems of
// an answer sent again with exponential backoff and jitter (DynamoDB's
// advice; the SDK's own retry policy is the target's, explicit), an
// optional cap in write units a second, and a checkpoint of the blocks
// done so that --resume skips them.

// BatchSize is BatchWriteItem's limit of items per request.
const BatchSize = 25

// LoadOptions configure a load.
type LoadOptions struct {
	Client *dynamodb.Client
	// Concurrency is the most requests in flight; 0 is 16.
	Concurrency int
	// Rate caps the write units a second (table and indexes, as billed);
	// 0 is no cap.
	Rate float64
	// MaxAttempts bounds the sends of one batch's unprocessed items; 0
	// is 12.
	MaxAttempts int
	// Backoff is the base of the backoff between sends of a batch (the
	// n-th waits rand[0, min(5 s, Backoff x 2^n))); 0 is 25 ms.
	Backoff time.Duration
	// Checkpoint, when set, records the blocks done.
	Checkpoint Recorder
	Rules      capacity.Rules
	// Tables names the created tables, model table -> name; nil: the
	// model's names.
	Tables map[string]string
}

// LoadSink writes blocks to tables.
type LoadSink struct {
	o       LoadOptions
	pop     *Population
	tables  []string
	batches chan *batch
	wg      sync.WaitGroup
	err     atomic.Pointer[error] // the first failure; errors of any type
	bucket  *endpoint.Bucket
	ctx     context.Context
	cancel  context.CancelFunc
	// Figures.
	Requests, Retries, Unprocessed, Items atomic.Int64
	mu                                    sync.Mutex
	open                                  map[int]int // block seq -> batches in flight
	closed                                map[int]bool
}

type batch struct {
	table string
	seq   int
	// body is the request, encoded once from the items' JSON: the SDK
	// client sends it as it is (signed, retried by its policy) instead of
	// serialising 25 items of SDK values, the dearest part of a client's
	// work on a loaded machine.
	body  []byte
	items int
	units float64
}

// NewLoadSink prepares a load into the model's tables, which must exist.
func NewLoadSink(ctx context.Context, p *Population, o LoadOptions) *LoadSink {
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 12
	}
	if o.Backoff <= 0 {
		o.Backoff = 25 * time.Millisecond
	}
	s := &LoadSink{o: o, pop: p, batches: make(chan *batch, o.Concurrency), open: map[int]int{}, closed: map[int]bool{}}
	s.ctx, s.cancel = context.WithCancel(ctx)
	if o.Rate > 0 {
		s.bucket = endpoint.NewBucket(o.Rate)
	}
	for _, t := range p.Model.Tables {
		name := t.Name
		if n, ok := o.Tables[t.Name]; ok {
			name = n
		}
		s.tables = append(s.tables, name)
	}
	for i := 0; i < o.Concurrency; i++ {
		s.wg.Add(1)
		go s.sender()
	}
	return s
}

// Encoding implements Sink: the items themselves.
func (s *LoadSink) Encoding() Encoding { return Encoding{Items: true} }

// Write implements Sink: the block's items, 25 at a time.
func (s *LoadSink) Write(ctx context.Context, o *Output) error {
	if err := s.failure(); err != nil {
		return err
	}
	var bs []*batch
	var lines [BatchSize][]byte
	for ti, t := range o.Tables {
		data := t.Data
		head := strconv.AppendQuote([]byte(`{"RequestItems":{`), s.tables[ti])
		head = append(head, `:[`...)
		for i := 0; len(data) > 0; i += BatchSize {
			b := &batch{table: s.tables[ti], seq: o.Block.Seq}
			// The batch's lines first, to size its body exactly: built by
			// appends from nothing, a body of 25 items grew through eight
			// allocations and copies.
			size := len(head) + len(`]}}`)
			n := 0
			for ; n < BatchSize && len(data) > 0; n++ {
				line, rest, _ := bytes.Cut(data, []byte{'\n'})
				data = rest
				lines[n] = line
				size += len(`,{"PutRequest":{"Item":}}`) + len(line)
			}
			b.body = getBody(size)
			b.body = append(b.body, head...)
			for j, line := range lines[:n] {
				if j > 0 {
					b.body = append(b.body, ',')
				}
				b.body = append(b.body, `{"PutRequest":{"Item":`...)
				b.body = append(b.body, line...)
				b.body = append(b.body, `}}`...)
				b.units += t.Units[i+j]
				b.items++
			}
			b.body = append(b.body, `]}}`...)
			bs = append(bs, b)
		}
	}
	s.mu.Lock()
	s.open[o.Block.Seq] = len(bs)
	s.mu.Unlock()
	if len(bs) == 0 {
		s.done(o.Block.Seq)
	}
	for _, b := range bs {
		select {
		case s.batches <- b:
		case <-s.ctx.Done():
			if err := s.failure(); err != nil {
				return err
			}
			return s.ctx.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s *LoadSink) failure() error {
	if err := s.err.Load(); err != nil {
		return *err
	}
	return nil
}

func (s *LoadSink) fail(err error) {
	s.err.CompareAndSwap(nil, &err)
	s.cancel()
}

// done marks one batch of a block written.
func (s *LoadSink) done(seq int) {
	s.mu.Lock()
	s.open[seq]--
	finished := s.open[seq] <= 0
	if finished {
		delete(s.open, seq)
	}
	s.mu.Unlock()
	if finished && s.o.Checkpoint != nil {
		s.o.Checkpoint.Done(seq)
	}
}

func (s *LoadSink) sender() {
	defer s.wg.Done()
	for b := range s.batches {
		if s.ctx.Err() != nil {
			continue
		}
		err := s.send(b)
		// The client has done with the body once the call returns (the
		// target sends a copy of it, and retries read the copy).
		putBody(b.body)
		b.body = nil
		if err != nil {
			s.fail(err)
			continue
		}
		s.Items.Add(int64(b.items))
		s.done(b.seq)
	}
}

// send writes one batch, sending its unprocessed items again until none
// is left: the first request with the batch's own body, the next ones
// with the SDK values the answer gave back. A throttled request (once the
// SDK's own retries are spent) is sent again as it was, after the
// backoff: until an answer says what was processed, nothing is.
func (s *LoadSink) send(b *batch) error {
	var reqs []types.WriteRequest
	answered := false
	units := b.units
	for attempt := 0; !answered || len(reqs) > 0; attempt++ {
		if attempt >= s.o.MaxAttempts {
			left := len(reqs)
			if !answered {
				left = b.items
			}
			return fmt.Errorf("table %s: %d items still unprocessed after %d attempts", b.table, left, attempt)
		}
		if attempt > 0 {
			s.Retries.Add(1)
			// Full jitter: rand[0, min(cap, base x 2^attempt)).
			d := min(5*time.Second, s.o.Backoff<<min(attempt, 10))
			select {
			case <-time.After(time.Duration(rand.Int64N(int64(d)) + 1)):
			case <-s.ctx.Done():
				return s.ctx.Err()
			}
		}
		if s.bucket != nil {
			if err := s.bucket.Take(s.ctx, units); err != nil {
				return err
			}
		}
		s.Requests.Add(1)
		var res *dynamodb.BatchWriteItemOutput
		var err error
		if !answered {
			res, err = s.o.Client.BatchWriteItem(s.ctx, endpoint.Placeholder(b.table), endpoint.PreEncoded(b.body))
		} else {
			res, err = s.o.Client.BatchWriteItem(s.ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{b.table: reqs}})
		}
		if err != nil {
			if isThrottle(err) {
				continue // the same requests again, after the backoff
			}
			return fmt.Errorf("BatchWriteItem %s: %w", b.table, err)
		}
		left := res.UnprocessedItems[b.table]
		if len(left) > 0 {
			s.Unprocessed.Add(int64(len(left)))
			n := b.items
			if answered {
				n = len(reqs)
			}
			units *= float64(len(left)) / float64(n)
		}
		answered = true
		reqs = left
	}
	return nil
}

// bodies recycles request bodies between batches.
var bodies sync.Pool

func getBody(n int) []byte {
	if b, ok := bodies.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func putBody(b []byte) {
	if cap(b) > 0 {
		b = b[:0]
		bodies.Put(&b)
	}
}

func isThrottle(err error) bool {
	var pe *types.ProvisionedThroughputExceededException
	var te *types.ThrottlingException
	var re *types.RequestLimitExceeded
	return errors.As(err, &pe) || errors.As(err, &te) || errors.As(err, &re)
}

// Close implements Sink: waits for every batch.
func (s *LoadSink) Close(context.Context) error {
	close(s.batches)
	s.wg.Wait()
	if s.o.Checkpoint != nil {
		if err := s.o.Checkpoint.Flush(); err != nil {
			return err
		}
	}
	return s.failure()
}

// LoadRetry is the SDK retry policy of loads: a request that fails
// (throttled, a 5xx) is sent again up to 8 times with backoff capped at
// 5 s, without a retry token budget (a long load must not run out of
// tokens); unprocessed items are the loader's own retries.
var LoadRetry = endpoint.Retry{MaxAttempts: 8, MaxBackoff: 5 * time.Second}

// LoadHTTPClient is the HTTP client of a load of concurrency senders:
// enough idle connections kept that no sender opens one per request.
func LoadHTTPClient(concurrency int) *http.Client {
	if concurrency <= 0 {
		concurrency = 16
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 2 * concurrency
	tr.MaxIdleConnsPerHost = 2 * concurrency
	return &http.Client{Transport: tr}
}
