package dataset

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// it measures the work, where wall time measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGenerate times the reference population (scale 0.0002, about
// 80,000 items) through one worker into a sink that drops the bytes, for
// each compression: items/s and MB/s of uncompressed lines are reported.
func BenchmarkGenerate(b *testing.B) {
	p := population(b, models[0], 0.0002, 1)
	for _, comp := range []string{"none", "zstd", "gzip"} {
		b.Run(comp, func(b *testing.B) {
			var items, raw int64
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := p.Run(context.Background(), discard{comp}, RunOptions{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range res.Tables {
					items += t.Items
				}
				raw += res.Raw
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(items), "cpu-ns/item")
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(raw)/1e6/b.Elapsed().Seconds(), "MB/s")
		})
	}
}

type discard struct{ comp string }

func (d discard) Encoding() Encoding                 { return Encoding{Format: "s3-import", Compression: d.comp} }
func (discard) Write(context.Context, *Output) error { return nil }
func (discard) Close(context.Context) error          { return nil }
