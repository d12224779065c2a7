package dataset

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compressions the file sinks write. Each block is compressed on its own
// by the worker that made it (a zstd frame, a gzip member), so that
// compression runs on every core; an object is the concatenation, which
// every zstd and gzip reader decodes as one stream (RFC 8878 and RFC 1952
// both define a file as a sequence of frames or members).
// klauspost/compress: the fastest pure-Go zstd and gzip encoders, already
// a dependency of the project.
var Compressions = []string{"zstd", "gzip", "none"}

// Extension is the file name suffix of a compression.
func Extension(compression string) string {
	switch compression {
	case "zstd":
		return ".zst"
	case "gzip":
		return ".gz"
	}
	return ""
}

type compressor struct {
	kind string
	zw   *zstd.Encoder
	gw   *gzip.Writer
	buf  bytes.Buffer
}

func newCompressor(kind string) *compressor {
	c := &compressor{kind: kind}
	switch kind {
	case "zstd":
		// One encoder per worker, used synchronously (EncodeAll): no
		// goroutines of its own beyond the worker's, so the workers are
		// the concurrency, one per core. The fastest level; not the
		// lower-memory mode, which re-allocates its history per frame and
		// cost a block about 40% more CPU, for a few MB per worker.
		c.zw, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	case "gzip":
		c.gw, _ = gzip.NewWriterLevel(nil, gzip.BestSpeed)
	}
	return c
}

// compress returns data compressed (a new slice the caller owns).
func (c *compressor) compress(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, nil
	}
	switch c.kind {
	case "zstd":
		return c.zw.EncodeAll(data, getBuf(len(data)/5)), nil
	case "gzip":
		c.buf.Reset()
		c.gw.Reset(&c.buf)
		if _, err := c.gw.Write(data); err != nil {
			return nil, err
		}
		if err := c.gw.Close(); err != nil {
			return nil, err
		}
		return append(getBuf(c.buf.Len()), c.buf.Bytes()...), nil
	case "none", "":
		return data, nil
	}
	return nil, fmt.Errorf("unknown compression %q (want zstd, gzip or none)", c.kind)
}
