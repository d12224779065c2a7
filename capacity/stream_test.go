package capacity

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
)

// jsonl returns n contract items, one per line, with varying sizes.
func jsonl(n int) []byte {
	var b []byte
	base := contract()
	for i := range n {
		it := base.With("SK", attr.Str(fmt.Sprintf("CT#%08d", i))).With("pad", attr.Str(strings.Repeat("x", i%64)))
		b = attr.AppendItemJSON(b, it)
		b = append(b, '\n')
	}
	return b
}

func TestSizeStream(t *testing.T) {
	r := Default()
	data := jsonl(5000)
	var want SizeHistogram
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		it, err := attr.DecodeItem(l)
		require.NoError(t, err)
		want.Add(r.ItemSize(it))
	}
	for _, workers := range []int{0, 1, 2, 5} {
		st, err := r.SizeStream(bytes.NewReader(data), workers)
		require.NoError(t, err)
		assert.Equal(t, uint64(5000), st.Sizes.Count())
		assert.Equal(t, want.Total(), st.Sizes.Total())
		assert.Equal(t, want.Percentile(50), st.Sizes.Percentile(50))
		assert.Equal(t, want.Max(), st.Sizes.Max())
		assert.Zero(t, st.BadLines)
	}
}

// TestSizeStreamBadLines: bad lines are skipped, counted and reported in
// line order with their positions; everything else is still sized.
func TestSizeStreamBadLines(t *testing.T) {
	big := `{"pk":{"S":"` + strings.Repeat("x", MaxItemSize) + `"}}`
	in := strings.Join([]string{
		`{"pk":{"S":"a"}}`,
		``,
		`{"pk":{"X":"a"}}`,
		`   `,
		`{"pk":{"S":"b"}}` + "\r",
		`{"pk":`,
		big,
		`{"pk":{"N":"12"}}`, // no final newline
	}, "\n")
	st, err := Default().SizeStream(strings.NewReader(in), 2)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), st.Sizes.Count())
	assert.Equal(t, uint64(3+3+4), st.Sizes.Total())
	assert.Equal(t, 3, st.BadLines)
	require.Len(t, st.Bad, 3)
	assert.Equal(t, 3, st.Bad[0].Line)
	assert.Positive(t, st.Bad[0].Column)
	assert.Equal(t, 6, st.Bad[1].Line)
	assert.Equal(t, LineError{Line: 7, Msg: "item is 409,602 B, over the 409,600 B limit"}, st.Bad[2])
	assert.Equal(t, "line 7: item is 409,602 B, over the 409,600 B limit", st.Bad[2].Error())
}

// TestSizeStreamManyBadLines keeps the details of the first lines only.
func TestSizeStreamManyBadLines(t *testing.T) {
	in := strings.Repeat("{\n", 5000)
	st, err := Default().SizeStream(strings.NewReader(in), 3)
	require.NoError(t, err)
	assert.Equal(t, 5000, st.BadLines)
	require.Len(t, st.Bad, MaxBadLines)
	for i, e := range st.Bad {
		assert.Equal(t, i+1, e.Line)
	}
}

type failingReader struct{ left []byte }

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.left) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.left)
	f.left = f.left[n:]
	return n, nil
}

func TestSizeStreamReadError(t *testing.T) {
	_, err := Default().SizeStream(&failingReader{left: jsonl(10)}, 2)
	assert.ErrorContains(t, err, "disk on fire")
}

// oneByteReader forces lines to straddle every read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// xs reads as an endless run of 'x'.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestSizeStreamLongLine: a line longer than MaxLineBytes is refused
// without being held whole, and the lines after it are still sized.
func TestSizeStreamLongLine(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"a":{"S":"`), io.LimitReader(xs{}, 3*MaxLineBytes),
		strings.NewReader("\"}}\n{\"a\":{\"S\":\"y\"}}\n"), io.LimitReader(xs{}, MaxLineBytes+1), strings.NewReader("\n{}\n"))
	st, err := Default().SizeStream(in, 2)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), st.Sizes.Count(), "lines 2 and 4")
	assert.Equal(t, uint64(2), st.Sizes.Total())
	require.Equal(t, 2, st.BadLines)
	assert.Equal(t, LineError{Line: 1, Msg: "over 16 MB without a line break: too long for one item"}, st.Bad[0])
	assert.Equal(t, 3, st.Bad[1].Line)
}

func TestSizeStreamSmallReads(t *testing.T) {
	st, err := Default().SizeStream(oneByteReader{bytes.NewReader(jsonl(50))}, 2)
	require.NoError(t, err)
	assert.Equal(t, uint64(50), st.Sizes.Count())
}

// BenchmarkJSONL decodes and sizes a stream of Lastro contract items of
// 433 to 496 B on 2 workers; items/s is the figure to watch (>= 300,000 on
// 2 cores).
func BenchmarkJSONL(b *testing.B) {
	const n = 20000
	data := jsonl(n)
	r := Default()
	// The same collector target as cardapio capacity item --jsonl.
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		st, err := r.SizeStream(bytes.NewReader(data), 2)
		if err != nil || st.Sizes.Count() != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// FuzzSizeStream feeds arbitrary bytes as a JSONL stream: no panic, every
// non-blank line is either sized or reported, and the result does not
// depend on the number of workers.
func FuzzSizeStream(f *testing.F) {
	for _, s := range []string{
		"", "\n\n", `{"pk":{"S":"a"}}`, "{\"a\":{\"N\":\"1\"}}\n{\"b\":{\"SS\":[\"x\"]}}\n",
		`{"pk":{"X":"a"}}`, "{\n}", `{"l":{"L":[{"M":{"k":{"NULL":true}}}]}}`, "\r\n \t\n",
		"{\"a\":{\"S\":\"x\"}} {\"b\":{\"M\":{\"c\":{\"S\":\"y\"}}\n}}\n", "{\"a\":{\"N\":\"1\"}}{\"b\":{\"N\":\"2\"}}\n{\"c\":{\"N\":\"3\"}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Default()
		one, err := r.SizeStream(bytes.NewReader(data), 1)
		require.NoError(t, err)
		lines := 0
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		assert.Equal(t, lines, int(one.Sizes.Count())+one.BadLines)
		three, err := r.SizeStream(oneByteReader{bytes.NewReader(data)}, 3)
		require.NoError(t, err)
		assert.Equal(t, one.Sizes.Total(), three.Sizes.Total())
		assert.Equal(t, one.Bad, three.Bad)
		// The chunk decoder's fast path agrees with decoding line by line.
		var each StreamStats
		r.sizeEachLine(data, 1, &each)
		assert.Equal(t, each.Sizes.Total(), one.Sizes.Total())
		assert.Equal(t, each.Sizes.Count(), one.Sizes.Count())
		assert.Equal(t, each.BadLines, one.BadLines)
		assert.Equal(t, each.Bad, one.Bad)
	})
}

// zeros is an endless stream of NUL bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestSizeStreamBinary: NUL bytes end the stream with an error instead of
// being read for ever; the lines before them are sized.
func TestSizeStreamBinary(t *testing.T) {
	st, err := Default().SizeStream(zeros{}, 2)
	require.EqualError(t, err, "line 1: a NUL byte: this is binary data, not JSON lines")
	assert.Equal(t, uint64(0), st.Sizes.Count())

	in := io.MultiReader(strings.NewReader("{\"a\":{\"S\":\"x\"}}\n{\"b\":{\"N\":\"1\"}}\n{\"c\""), zeros{})
	st, err = Default().SizeStream(in, 1)
	require.EqualError(t, err, "line 3: a NUL byte: this is binary data, not JSON lines")
	assert.Equal(t, uint64(2), st.Sizes.Count())

	// A line refused as too long, then NULs while skipping it.
	in = io.MultiReader(io.LimitReader(xs{}, MaxLineBytes+chunkSize), zeros{})
	_, err = Default().SizeStream(in, 1)
	require.EqualError(t, err, "line 1: a NUL byte: this is binary data, not JSON lines")
}

// TestSizeStreamEndlessLine: a line without an end is refused, and the
// search for its end stops.
func TestSizeStreamEndlessLine(t *testing.T) {
	defer func(m int) { maxSkip = m }(maxSkip)
	maxSkip = 8 << 20
	st, err := Default().SizeStream(xs{}, 1)
	require.EqualError(t, err, "line 1: over 24 MB without a line break: not JSON lines")
	require.Equal(t, 1, st.BadLines)
	assert.Equal(t, "over 16 MB without a line break: too long for one item", st.Bad[0].Msg)
}
