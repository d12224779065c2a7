package output

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
)

// Request is one run of `cardapio data`: a population, a slice of it, and
// where it goes (files, or an engine).
type Request struct {
	dataset.Options
	Part, Parts int
	Workers     int
	// Files: Out is the output directory.
	Out         string
	Format      string
	Compression string
	// Load: Target receives the items (its tables must exist, named by
	// Tables: model table -> created name; nil names them as the model).
	Target      *endpoint.Target
	Tables      map[string]string
	Concurrency int
	Rate        float64
	Checkpoint  string
	Resume      bool
	// Progress receives a progress bar (Terminal) or plain lines.
	Progress io.Writer
	Terminal bool
	Prices   capacity.Prices
}

// Report is what a run made.
type Report struct {
	Summary  dataset.Summary
	Manifest *Manifest   `json:"manifest,omitempty"`
	Load     *LoadReport `json:"load,omitempty"`
}

// LoadReport are a load's figures.
type LoadReport struct {
	Target      string `json:"target"`
	Retry       string `json:"retry"`
	Requests    int64  `json:"requests"`
	Retries     int64  `json:"retries"`
	Unprocessed int64  `json:"unprocessed"`
	Items       int64  `json:"items"`
	Skipped     int    `json:"skippedBlocks"`
	Checkpoint  string `json:"checkpoint,omitempty"`
}

// Produce runs a request on a population.
func Produce(ctx context.Context, p *dataset.Population, rq Request) (*Report, error) {
	if rq.Parts <= 0 {
		rq.Parts = 1
	}
	ro := dataset.RunOptions{Part: rq.Part, Parts: rq.Parts, Workers: rq.Workers, Rules: capacity.Default()}
	var sink dataset.Sink
	var files *FileSink
	var load *dataset.LoadSink
	var cp *Checkpoint
	rep := &Report{}
	switch {
	case rq.Target != nil:
		if rq.Checkpoint != "" {
			c, err := OpenCheckpoint(rq.Checkpoint, Fingerprint(p, rq.Part, rq.Parts, rq.Target.Name), rq.Resume, len(p.Blocks()))
			if err != nil {
				return nil, err
			}
			cp = c
			ro.Skip = cp.Skip
		} else if rq.Resume {
			return nil, bad("--resume needs a checkpoint file (--checkpoint)")
		}
		lo := dataset.LoadOptions{Client: rq.Target.Client, Concurrency: rq.Concurrency, Rate: rq.Rate, Rules: ro.Rules, Tables: rq.Tables}
		if cp != nil {
			lo.Checkpoint = cp // a nil *Checkpoint would be a non-nil Recorder
		}
		load = dataset.NewLoadSink(ctx, p, lo)
		sink = load
		rep.Load = &LoadReport{Target: rq.Target.Name, Retry: rq.Target.Retry.String(), Checkpoint: rq.Checkpoint}
		if cp != nil {
			rep.Load.Skipped = cp.Len()
		}
	case rq.Out != "":
		f, err := NewFileSink(p, FileOptions{Dir: rq.Out, Format: rq.Format, Compression: rq.Compression, Part: rq.Part, Parts: rq.Parts})
		if err != nil {
			return nil, err
		}
		files, sink = f, f
	default:
		return nil, errors.New("nowhere to write: give --out DIR, or a target (--serve, --endpoint-url, --aws)")
	}
	if rq.Progress != nil {
		ro.Progress, ro.Every = progress(rq.Progress, rq.Terminal)
	}
	res, err := p.Run(ctx, sink, ro)
	if err != nil {
		if load != nil {
			_ = load.Close(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	rep.Summary = res.Summarize(rq.Prices)
	if files != nil {
		m := files.Manifest()
		rep.Manifest = &m
	}
	if load != nil {
		rep.Load.Requests, rep.Load.Retries = load.Requests.Load(), load.Retries.Load()
		rep.Load.Unprocessed, rep.Load.Items = load.Unprocessed.Load(), load.Items.Load()
	}
	return rep, nil
}

// progress returns a progress callback: a bar on a terminal (items/s,
// ETA from the expected items), a plain line every 10 seconds otherwise.
// Lines carry counts only, never an item's values.
func progress(w io.Writer, terminal bool) (func(dataset.Progress), time.Duration) {
	if terminal {
		var bar *progressbar.ProgressBar
		return func(pr dataset.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions64(int64(pr.ExpectedItems), progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("items"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
					progressbar.OptionSetItsString("items"), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionSetPredictTime(true), progressbar.OptionFullWidth(), progressbar.OptionClearOnFinish())
			}
			if pr.Items > bar.GetMax64() {
				bar.ChangeMax64(pr.Items)
			}
			_ = bar.Set64(pr.Items)
			if pr.Blocks == pr.Of {
				_ = bar.Finish()
			}
		}, 200 * time.Millisecond
	}
	return func(pr dataset.Progress) {
		rate := 0.0
		if s := pr.Elapsed.Seconds(); s > 0 {
			rate = float64(pr.Items) / s
		}
		eta := "-"
		switch {
		case pr.Blocks == pr.Of:
			eta = "0s"
		case rate > 0 && pr.ExpectedItems > float64(pr.Items):
			eta = time.Duration((pr.ExpectedItems - float64(pr.Items)) / rate * float64(time.Second)).Round(time.Second).String()
		}
		fmt.Fprintf(w, "data: %d of %d blocks, %d items (about %.0f expected), %.0f items/s, %.1f MB of lines, %s elapsed, ETA %s\n",
			pr.Blocks, pr.Of, pr.Items, pr.ExpectedItems, rate, float64(pr.Bytes)/1e6, pr.Elapsed.Round(time.Second), eta)
	}, 10 * time.Second
}

// JSON writes the report as one JSON document.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
