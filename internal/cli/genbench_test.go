package cli

import (
	"testing"
)

// BenchmarkGenerateCommand runs cardapio generate on the reference model
// in process: the model loaded, the package generated and written (the
// process start is bench/generate.sh's to measure).
func BenchmarkGenerateCommand(b *testing.B) {
	out := b.TempDir()
	for b.Loop() {
		if r := runCLI([]string{"generate", "../../model.yaml", "--out", out}, nil); r.code != 0 {
			b.Fatal(r.stderr)
		}
	}
}
