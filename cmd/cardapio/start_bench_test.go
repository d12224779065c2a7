//go:build unix

package main

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkSupervision measures what running under supervision adds to a
// command: each iteration runs it supervised and alone, in alternating
// order so that load on the machine falls on both alike, and reports the
// min, median and max of the supervised/alone time ratios of the pairs.
func BenchmarkSupervision(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"help", []string{"--help"}},
		{"check", []string{"check", "../../model.yaml"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			once := func(env ...string) time.Duration {
				cmd := exec.Command(bin, c.args...)
				cmd.Env = append(os.Environ(), env...)
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var ratios []float64
			var sup, alone time.Duration
			for i := 0; b.Loop(); i++ {
				var s, a time.Duration
				if i%2 == 0 {
					s = once()
					a = once("CARDAPIO_SUPERVISE=0")
				} else {
					a = once("CARDAPIO_SUPERVISE=0")
					s = once()
				}
				sup += s
				alone += a
				ratios = append(ratios, float64(s)/float64(a))
			}
			slices.Sort(ratios)
			n := len(ratios)
			b.ReportMetric(ratios[0], "min-ratio")
			b.ReportMetric(ratios[n/2], "median-ratio")
			b.ReportMetric(ratios[n-1], "max-ratio")
			b.ReportMetric(float64(sup.Microseconds())/float64(n), "supervised-µs")
			b.ReportMetric(float64(alone.Microseconds())/float64(n), "alone-µs")
		})
	}
}
