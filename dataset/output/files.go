package output

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cardapio/cardapio/dataset"
	userfiles "github.com/cardapio/cardapio/internal/files"
)

// The file sinks write the layout DynamoDB's import from S3 reads: one key
// prefix per table holding only data objects (the import takes every
// object under the prefix), DynamoDB JSON lines {"Item": {...}}, objects
// compressed alike, and beside the prefixes a manifest with each object's
// items, bytes and checksums. Upload the directory as it is and import
// each table from s3://BUCKET/PREFIX/<table>/data/.
//
// Object sizes follow AWS's advice for imports: for items under 1 KB,
// about 4,000,000 items an object, proportionally fewer for larger items,
// which is 4,000,000 KB units (each item counted in whole KB, at least
// one), and at most 50,000 objects an import.

// ObjectUnits is the KB units an object holds before the next one starts.
const ObjectUnits = 4_000_000

// MaxObjects is the import's limit of objects under one prefix.
const MaxObjects = 50_000

// FileOptions configure a file sink.
type FileOptions struct {
	Dir         string
	Format      string // s3-import or jsonl
	Compression string // zstd, gzip, none
	// ObjectUnits overrides the object size (tests); 0 is ObjectUnits.
	ObjectUnits float64
	// Part and Parts name the slice in object and manifest names.
	Part, Parts int
}

// Manifest describes a file sink's output.
type Manifest struct {
	Format      string          `json:"format"`
	Compression string          `json:"compression"`
	Model       string          `json:"model"`
	Seed        uint64          `json:"seed"`
	Scale       float64         `json:"scale"`
	AsOf        string          `json:"asOf"`
	Part        int             `json:"part"`
	Parts       int             `json:"parts"`
	Tables      []TableManifest `json:"tables"`
}

// TableManifest is one table's objects.
type TableManifest struct {
	Table string `json:"table"`
	// KeyPrefix is the directory of the table's data objects, relative
	// to the output directory: the S3KeyPrefix of the import.
	KeyPrefix            string           `json:"keyPrefix"`
	InputFormat          string           `json:"inputFormat"`
	InputCompressionType string           `json:"inputCompressionType"`
	Items                int64            `json:"items"`
	Bytes                int64            `json:"bytes"`           // uncompressed: what an import bills
	CompressedBytes      int64            `json:"compressedBytes"` // stored
	Objects              []ObjectManifest `json:"objects"`
}

// ObjectManifest is one data object.
type ObjectManifest struct {
	Key             string `json:"key"`
	Items           int64  `json:"items"`
	Bytes           int64  `json:"bytes"`
	CompressedBytes int64  `json:"compressedBytes"`
	SHA256          string `json:"sha256"`
	// MD5 is base64, as S3's Content-MD5 header takes it.
	MD5 string `json:"md5"`
}

// FileSink writes data objects and a manifest.
type FileSink struct {
	o       FileOptions
	pop     *dataset.Population
	tables  []*tableFiles
	written bool
}

type tableFiles struct {
	name    string
	dir     string
	m       TableManifest
	f       *os.File
	tmp     string
	cur     ObjectManifest
	units   float64
	sha, md hash.Hash
	w       io.Writer
}

// NewFileSink prepares the output directory for the population.
func NewFileSink(p *dataset.Population, o FileOptions) (*FileSink, error) {
	switch o.Format {
	case "s3-import", "jsonl":
	default:
		return nil, fmt.Errorf("format %q: want s3-import or jsonl", o.Format)
	}
	switch o.Compression {
	case "zstd", "gzip", "none":
	default:
		return nil, fmt.Errorf("compression %q: want zstd, gzip or none", o.Compression)
	}
	if o.Dir == "" {
		return nil, errors.New("no output directory")
	}
	if o.ObjectUnits <= 0 {
		o.ObjectUnits = ObjectUnits
	}
	if o.Parts <= 0 {
		o.Parts = 1
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	s := &FileSink{o: o, pop: p}
	for _, t := range p.Model.Tables {
		prefix := filepath.ToSlash(filepath.Join(t.Name, "data")) + "/"
		tf := &tableFiles{name: t.Name, dir: filepath.Join(o.Dir, t.Name, "data"),
			m: TableManifest{Table: t.Name, KeyPrefix: prefix, InputFormat: "DYNAMODB_JSON", InputCompressionType: strings.ToUpper(o.Compression)}}
		if o.Format == "jsonl" {
			tf.m.InputFormat = "JSONL"
		}
		s.tables = append(s.tables, tf)
	}
	return s, nil
}

// Encoding implements Sink.
func (s *FileSink) Encoding() dataset.Encoding {
	return dataset.Encoding{Format: s.o.Format, Compression: s.o.Compression}
}

func (s *FileSink) objectName(tf *tableFiles) string {
	ext := ".json"
	if s.o.Format == "jsonl" {
		ext = ".jsonl"
	}
	ext += dataset.Extension(s.o.Compression)
	n := len(tf.m.Objects)
	if s.o.Parts > 1 {
		return fmt.Sprintf("part-%04d-of-%04d-%05d%s", s.o.Part, s.o.Parts, n, ext)
	}
	return fmt.Sprintf("%05d%s", n, ext)
}

// Write implements Sink.
func (s *FileSink) Write(_ context.Context, o *dataset.Output) error {
	for i, t := range o.Tables {
		if t.Items == 0 {
			continue
		}
		tf := s.tables[i]
		if tf.f == nil {
			if err := s.open(tf); err != nil {
				return err
			}
		}
		if _, err := tf.w.Write(t.Data); err != nil {
			return fmt.Errorf("write %s: %w", tf.tmp, err)
		}
		tf.cur.Items += t.Items
		tf.cur.Bytes += t.Raw
		tf.cur.CompressedBytes += int64(len(t.Data))
		tf.units += t.KBUnits
		if tf.units >= s.o.ObjectUnits {
			if err := s.closeObject(tf); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *FileSink) open(tf *tableFiles) error {
	if err := os.MkdirAll(tf.dir, 0o755); err != nil {
		return err
	}
	name := s.objectName(tf)
	tf.tmp = filepath.Join(tf.dir, "."+name+".tmp")
	f, err := os.Create(tf.tmp)
	if err != nil {
		return err
	}
	tf.f = f
	tf.sha, tf.md = sha256.New(), md5.New()
	tf.w = io.MultiWriter(f, tf.sha, tf.md)
	tf.cur = ObjectManifest{Key: tf.m.KeyPrefix + name}
	tf.units = 0
	return nil
}

func (s *FileSink) closeObject(tf *tableFiles) error {
	if tf.f == nil {
		return nil
	}
	if err := tf.f.Close(); err != nil {
		return err
	}
	final := filepath.Join(s.o.Dir, filepath.FromSlash(tf.cur.Key))
	if err := os.Rename(tf.tmp, final); err != nil {
		return err
	}
	tf.cur.SHA256 = hex.EncodeToString(tf.sha.Sum(nil))
	tf.cur.MD5 = base64.StdEncoding.EncodeToString(tf.md.Sum(nil))
	tf.m.Objects = append(tf.m.Objects, tf.cur)
	tf.m.Items += tf.cur.Items
	tf.m.Bytes += tf.cur.Bytes
	tf.m.CompressedBytes += tf.cur.CompressedBytes
	tf.f = nil
	return nil
}

// ManifestName is the manifest's file name for a part.
func ManifestName(part, parts int) string {
	if parts > 1 {
		return fmt.Sprintf("manifest-part-%04d-of-%04d.json", part, parts)
	}
	return "manifest.json"
}

// Close implements Sink: the last objects and the manifest.
func (s *FileSink) Close(context.Context) error {
	m := s.Manifest()
	for _, tf := range s.tables {
		if err := s.closeObject(tf); err != nil {
			return err
		}
	}
	m = s.Manifest()
	keep := map[string]bool{}
	for _, t := range m.Tables {
		for _, o := range t.Objects {
			keep[o.Key] = true
		}
	}
	if err := s.removeStale(keep); err != nil {
		return fmt.Errorf("remove an earlier run's objects from %s: %w", s.o.Dir, err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	s.written = true
	return userfiles.Write(filepath.Join(s.o.Dir, ManifestName(s.o.Part, s.o.Parts)), append(data, '\n'))
}

// Manifest returns the manifest so far (complete after Close).
func (s *FileSink) Manifest() Manifest {
	m := Manifest{Format: s.o.Format, Compression: s.o.Compression, Model: s.pop.Model.Name, Seed: s.pop.Opts.Seed,
		Scale: s.pop.Opts.Scale, AsOf: s.pop.AsOf.Format("2006-01-02"), Part: s.o.Part, Parts: s.o.Parts}
	for _, tf := range s.tables {
		if len(tf.m.Objects) == 0 && tf.f == nil {
			continue
		}
		m.Tables = append(m.Tables, tf.m)
	}
	return m
}
