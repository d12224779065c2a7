package output

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/cardapio/cardapio/dataset"
	userfiles "github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
)

// Checkpoint records which blocks of a run are done, in a small JSON file
// rewritten atomically (write, then rename) every few seconds and at the
// end, so that a load interrupted by a crash, a Ctrl-C or a lost
// connection resumes where it stopped: blocks are deterministic, so the
// blocks it skips are exactly those it wrote.
type Checkpoint struct {
	path  string
	fp    string
	mu    sync.Mutex
	done  map[int]bool
	dirty bool
	last  time.Time
}

type checkpointFile struct {
	Fingerprint string `json:"fingerprint"`
	// Done lists runs of finished block numbers, [first, last].
	Done [][2]int `json:"done"`
}

// Fingerprint identifies a run: the model's normalised document and
// everything that picks the population and its slice. A checkpoint of
// another run is refused.
func Fingerprint(p *dataset.Population, part, parts int, target string) string {
	h := sha256.New()
	if doc, err := p.Model.Marshal(); err == nil {
		h.Write(doc)
	}
	fmt.Fprintf(h, "\x00seed=%d scale=%g asOf=%s part=%d/%d target=%s", p.Opts.Seed, p.Opts.Scale, p.AsOf.Format("2006-01-02"), part, parts, target)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// maxCheckpointBytes caps what is read of a checkpoint file.
const maxCheckpointBytes = 16 << 20

// OpenCheckpoint opens the checkpoint at path for the run fp, of blocks
// blocks (block numbers 0 to blocks-1). With resume the blocks it records
// are done; without, it starts empty (an existing file is replaced at the
// first flush). A file naming a block past the run's is refused, so what
// a file makes this hold is bounded by the run, not by the file.
func OpenCheckpoint(path, fp string, resume bool, blocks int) (*Checkpoint, error) {
	c := &Checkpoint{path: path, fp: fp, done: map[int]bool{}, last: time.Now()}
	if !resume {
		return c, nil
	}
	data, err := userfiles.ReadCapped(path, maxCheckpointBytes, "a checkpoint")
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("checkpoint %s: %w", path, userfiles.Reason(err)))
	}
	var cf checkpointFile
	if err := json.Unmarshal(data, &cf); err != nil {
		return nil, bad("checkpoint %s: not a checkpoint: %v", path, err)
	}
	if cf.Fingerprint != fp {
		return nil, bad("checkpoint %s belongs to another run (another model, seed, scale, as-of date, part or target): remove it or drop --resume", path)
	}
	for _, r := range cf.Done {
		if r[0] < 0 || r[1] < r[0] || r[1] >= blocks {
			return nil, bad("checkpoint %s: bad range [%d, %d] of a run of %d blocks", path, r[0], r[1], blocks)
		}
		for s := r[0]; s <= r[1]; s++ {
			c.done[s] = true
		}
	}
	return c, nil
}

// Skip reports whether a block is done (a Skip for RunOptions).
func (c *Checkpoint) Skip(seq int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done[seq]
}

// Len is the number of blocks done.
func (c *Checkpoint) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.done)
}

// Done records a block as finished, flushing at most every 2 seconds.
func (c *Checkpoint) Done(seq int) {
	c.mu.Lock()
	c.done[seq] = true
	c.dirty = true
	due := time.Since(c.last) > 2*time.Second
	c.mu.Unlock()
	if due {
		_ = c.Flush()
	}
}

// Flush writes the checkpoint.
func (c *Checkpoint) Flush() error {
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	seqs := make([]int, 0, len(c.done))
	for s := range c.done {
		seqs = append(seqs, s)
	}
	c.dirty = false
	c.last = time.Now()
	c.mu.Unlock()
	sort.Ints(seqs)
	cf := checkpointFile{Fingerprint: c.fp}
	for _, s := range seqs {
		if n := len(cf.Done); n > 0 && cf.Done[n-1][1] == s-1 {
			cf.Done[n-1][1] = s
		} else {
			cf.Done = append(cf.Done, [2]int{s, s})
		}
	}
	data, err := json.Marshal(cf)
	if err != nil {
		return err
	}
	return userfiles.Write(c.path, data)
}
