package executor

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// A page of a query or scan is a megabyte of items at most, and a
// fan-out reads tens of thousands of them; a run uses, of those items,
// their count and the first (what a step binds), unless Options.Keep
// asks for all. Converting every item to the SDK's values is most of a
// large read's client work (about 4 us an item), so a read that keeps
// nothing asks for its answer's Items cut to the first before the SDK
// decodes it. The request is the same; the whole answer is received and
// scanned (its items counted, its checksum verified); only the items no
// one reads are not decoded.

// pageItems is what firstItemOnly saw of an answer's Items.
type pageItems struct {
	cut   bool // the answer was scanned and its Items cut to the first
	count int  // how many items it held
}

// firstItemOnly cuts a successful answer's Items array to its first
// element before the SDK decodes it, and records how many there were.
// An answer it cannot scan (not JSON as expected, a checksum that does
// not match) is left whole, for the SDK to decode or reject as usual.
func firstItemOnly(dst *pageItems) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Deserialize.Add(middleware.DeserializeMiddlewareFunc("cardapioFirstItemOnly",
				func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleDeserialize(ctx, in)
					if err != nil {
						return out, md, err
					}
					resp, ok := out.RawResponse.(*smithyhttp.Response)
					if !ok || resp == nil || resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil {
						return out, md, err
					}
					body, rerr := io.ReadAll(resp.Body)
					_ = resp.Body.Close()
					if rerr != nil {
						return out, md, rerr
					}
					if cut, n, ok := cutItems(body); ok && checksumHolds(resp.Header.Get("X-Amz-Crc32"), body) {
						*dst = pageItems{cut: true, count: n}
						body = cut
						if resp.Header.Get("X-Amz-Crc32") != "" {
							resp.Header.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
						}
					}
					resp.Body = io.NopCloser(bytes.NewReader(body))
					resp.ContentLength = int64(len(body))
					resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
					return out, md, err
				}), middleware.After)
		})
	}
}

// checksumHolds reports whether body matches a CRC32 header (or there is
// none).
func checksumHolds(header string, body []byte) bool {
	if header == "" {
		return true
	}
	want, err := strconv.ParseUint(header, 10, 32)
	return err == nil && uint32(want) == crc32.ChecksumIEEE(body)
}

// cutItems returns body, a JSON object, with the array of its top-level
// member "Items" cut to its first element, and how many elements it had.
// ok is false for anything else: no such member or two of them, an
// Items that is not an array, malformed JSON.
func cutItems(body []byte) (cut []byte, n int, ok bool) {
	i := ws(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, 0, false
	}
	from, to := -1, -1 // what is cut out: after the first item, to the array's end
	found := false
	if i = ws(body, i+1); i < len(body) && body[i] == '}' {
		return nil, 0, false
	}
	for {
		if i >= len(body) || body[i] != '"' {
			return nil, 0, false
		}
		ke, bad := skipString(body, i)
		if bad {
			return nil, 0, false
		}
		key := body[i+1 : ke-1]
		i = ws(body, ke)
		if i >= len(body) || body[i] != ':' {
			return nil, 0, false
		}
		i = ws(body, i+1)
		var end int
		if string(key) == "Items" {
			if found {
				return nil, 0, false
			}
			found = true
			if end, from, to, n, bad = scanArray(body, i); bad {
				return nil, 0, false
			}
		} else if end, bad = skipValue(body, i); bad {
			return nil, 0, false
		}
		i = ws(body, end)
		if i >= len(body) {
			return nil, 0, false
		}
		if body[i] == '}' {
			break
		}
		if body[i] != ',' {
			return nil, 0, false
		}
		i = ws(body, i+1)
	}
	if !found || ws(body, i+1) != len(body) {
		return nil, 0, false
	}
	if from < 0 {
		return body, n, true
	}
	out := make([]byte, 0, len(body)-(to-from))
	out = append(out, body[:from]...)
	return append(out, body[to:]...), n, true
}

// scanArray scans the array at body[at]: end is the index after it, and
// [from, to) what follows its first element up to its closing bracket
// (-1, -1 when it is empty), n its length.
func scanArray(body []byte, at int) (end, from, to, n int, bad bool) {
	if at >= len(body) || body[at] != '[' {
		return 0, 0, 0, 0, true
	}
	i := ws(body, at+1)
	if i < len(body) && body[i] == ']' {
		return i + 1, -1, -1, 0, false
	}
	from = -1
	for {
		e, bad := skipValue(body, i)
		if bad {
			return 0, 0, 0, 0, true
		}
		n++
		if from < 0 {
			from = e
		}
		i = ws(body, e)
		if i >= len(body) {
			return 0, 0, 0, 0, true
		}
		if body[i] == ']' {
			return i + 1, from, i, n, false
		}
		if body[i] != ',' {
			return 0, 0, 0, 0, true
		}
		i = ws(body, i+1)
	}
}

func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"').
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, false
		}
	}
	return 0, true
}

// skipValue returns the index after the JSON value starting at b[i]:
// strings and nesting followed exactly, scalars up to their delimiter.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, true
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var open []byte // the closers expected, innermost last
		for ; i < len(b); i++ {
			switch c := b[i]; c {
			case '"':
				end, bad := skipString(b, i)
				if bad {
					return 0, true
				}
				i = end - 1
			case '{':
				open = append(open, '}')
			case '[':
				open = append(open, ']')
			case '}', ']':
				if open[len(open)-1] != c {
					return 0, true
				}
				if open = open[:len(open)-1]; len(open) == 0 {
					return i + 1, false
				}
			}
		}
		return 0, true
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	if i == start {
		return 0, true
	}
	return i, false
}
