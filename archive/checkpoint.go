package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
)

// The checkpoint file records, per stream and shard, the sequence
// number of the last record archived, and which shards are done (closed
// and read to their end):
//
//	{"version": 1, "from": "events", "to": "events-history",
//	 "streams": {"arn:...:table/events/stream/2026-...": {"shards": {
//	   "shardId-...-00000000": {"done": true},
//	   "shardId-...-00000001": {"seq": "100000000000000000042"}}}}}
//
// It is written to a temporary file, synced and renamed over the old
// one, so that a crash leaves one or the other whole. It is read as
// outside input: at most maxCheckpoint bytes, every member checked.

const (
	maxCheckpoint = 16 << 20
	maxARN        = 1024
	maxShardID    = 65
	maxSeq        = 40
)

type cpFile struct {
	Version int                  `json:"version"`
	From    string               `json:"from"`
	To      string               `json:"to"`
	Streams map[string]*cpStream `json:"streams"`
}

type cpStream struct {
	Shards map[string]*cpShard `json:"shards"`
}

type cpShard struct {
	Seq  string `json:"seq,omitempty"`
	Done bool   `json:"done,omitempty"`
}

// checkpoint is the positions of a run, kept in a file when path is set.
type checkpoint struct {
	path  string
	f     cpFile
	dirty bool
}

// loadCheckpoint reads the checkpoint at path (none yet: an empty one)
// of the archive of from into to.
func loadCheckpoint(path, from, to string) (*checkpoint, error) {
	cp := &checkpoint{path: path, f: cpFile{Version: 1, From: from, To: to, Streams: map[string]*cpStream{}}}
	if path == "" {
		return cp, nil
	}
	b, err := files.ReadCapped(path, maxCheckpoint, "a checkpoint of this command")
	if errors.Is(err, os.ErrNotExist) {
		return cp, nil
	}
	if err != nil {
		return nil, input.Wrap(fmt.Errorf("checkpoint %s: %w", path, files.Reason(err)))
	}
	got, err := parseCheckpoint(b)
	if err != nil {
		return nil, inputf("checkpoint %s: %v", path, err)
	}
	if got.From != from || got.To != to {
		return nil, inputf("checkpoint %s records the archive of %s into %s, not of %s into %s", path, got.From, got.To, from, to)
	}
	cp.f = *got
	return cp, nil
}

// parseCheckpoint decodes and checks a checkpoint file's contents.
func parseCheckpoint(b []byte) (*cpFile, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f cpFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a checkpoint file: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not a checkpoint file: more after its JSON object")
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("version %d, this command reads version 1", f.Version)
	}
	if f.From == "" || f.To == "" {
		return nil, errors.New("no from or to table")
	}
	if f.Streams == nil {
		f.Streams = map[string]*cpStream{}
	}
	for arn, s := range f.Streams {
		if arn == "" || len(arn) > maxARN || !strings.HasPrefix(arn, "arn:") {
			return nil, fmt.Errorf("a stream ARN %q", arn)
		}
		if s == nil || s.Shards == nil {
			f.Streams[arn] = &cpStream{Shards: map[string]*cpShard{}}
			continue
		}
		for id, sh := range s.Shards {
			if id == "" || len(id) > maxShardID {
				return nil, fmt.Errorf("a shard id %q", id)
			}
			if sh == nil {
				s.Shards[id] = &cpShard{}
				continue
			}
			if len(sh.Seq) > maxSeq || strings.Trim(sh.Seq, "0123456789") != "" {
				return nil, fmt.Errorf("shard %s has the sequence number %q", id, sh.Seq)
			}
		}
	}
	return &f, nil
}

func (cp *checkpoint) shard(arn, id string) *cpShard {
	s := cp.f.Streams[arn]
	if s == nil {
		s = &cpStream{Shards: map[string]*cpShard{}}
		cp.f.Streams[arn] = s
	}
	sh := s.Shards[id]
	if sh == nil {
		sh = &cpShard{}
		s.Shards[id] = sh
	}
	return sh
}

func (cp *checkpoint) done(arn, id string) bool {
	if s := cp.f.Streams[arn]; s != nil && s.Shards[id] != nil {
		return s.Shards[id].Done
	}
	return false
}

func (cp *checkpoint) seq(arn, id string) string {
	if s := cp.f.Streams[arn]; s != nil && s.Shards[id] != nil {
		return s.Shards[id].Seq
	}
	return ""
}

func (cp *checkpoint) set(arn, id, seq string) {
	cp.shard(arn, id).Seq = seq
	cp.dirty = true
}

func (cp *checkpoint) finish(arn, id string) {
	sh := cp.shard(arn, id)
	if !sh.Done {
		sh.Done, cp.dirty = true, true
	}
}

// keep forgets the streams no longer listed (past their retention).
func (cp *checkpoint) keep(arns []string) {
	live := map[string]bool{}
	for _, a := range arns {
		live[a] = true
	}
	for a := range cp.f.Streams {
		if !live[a] {
			delete(cp.f.Streams, a)
			cp.dirty = true
		}
	}
}

// keepShards forgets the shards of a stream no longer listed (trimmed).
func (cp *checkpoint) keepShards(arn string, listed map[string]bool) {
	s := cp.f.Streams[arn]
	if s == nil {
		return
	}
	for id := range s.Shards {
		if !listed[id] {
			delete(s.Shards, id)
			cp.dirty = true
		}
	}
}

// save writes the checkpoint, when it changed, atomically and durably.
func (cp *checkpoint) save() error {
	if cp.path == "" || !cp.dirty {
		return nil
	}
	b, err := json.MarshalIndent(cp.f, "", " ")
	if err != nil {
		return err
	}
	if err := files.Write(cp.path, append(b, '\n')); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	cp.dirty = false
	return nil
}
