package output

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cardapio/cardapio/internal/input"
)

// FuzzParsePart: --part text either gives 0 <= i < n or an input error,
// and what it accepts prints back as itself.
func FuzzParsePart(f *testing.F) {
	for _, s := range []string{"", "0/1", "3/8", "7/7", "-1/2", "1/0", "a/b", "1/2/3", " 1/2", "0/1000000", "0/1000001", "00/04", "+1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParsePart(s)
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("%q: %v is not an input error", s, err)
			}
			return
		}
		if n < 1 || i < 0 || i >= n || n > 1_000_000 {
			t.Fatalf("%q gave %d/%d", s, i, n)
		}
		if s != "" {
			j, m, err := ParsePart(strconv.Itoa(i) + "/" + strconv.Itoa(n))
			if err != nil || j != i || m != n {
				t.Fatalf("%q: %d/%d does not read back", s, i, n)
			}
		}
	})
}

// FuzzOpenCheckpoint: any file handed to --resume is either refused with
// an error or gives a checkpoint of valid block numbers; it never panics
// and never holds a block the run does not have.
func FuzzOpenCheckpoint(f *testing.F) {
	const fp = "0123456789abcdef0123456789abcdef"
	for _, s := range []string{
		`{"fingerprint":"` + fp + `","done":[[0,3],[5,5]]}`,
		`{"fingerprint":"` + fp + `","done":[[3,0]]}`,
		`{"fingerprint":"` + fp + `","done":[[-1,2]]}`,
		`{"fingerprint":"` + fp + `","done":[[0,99999999999]]}`,
		`{"fingerprint":"other","done":[]}`,
		`{"fingerprint":"` + fp + `","done":null}`,
		`[]`, ``, `{`, "\x00\x01",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "ckpt.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCheckpoint(path, fp, true, 1000)
		if err != nil {
			return
		}
		if c.Len() > 1000 {
			t.Fatalf("%d blocks of a run of 1000", c.Len())
		}
		for s := range c.done {
			if s < 0 || s >= 1000 {
				t.Fatalf("block %d", s)
			}
		}
	})
}
