package catalog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/cardapio/cardapio/attr"
)

// Computed says how a stored attribute is computed, so that every writer,
// the generated code and the dataset generator agree.
type Computed struct {
	Kind      string // hashMod, hmac or template
	Hash      string // hashMod: fnv1a32
	Input     string // hashMod: the attribute hashed; hmac: the plain input (never stored)
	Modulo    int
	Algorithm string // hmac: sha256
	Secret    string // hmac: tenant or global
	SecretBy  string // hmac: attribute choosing the secret (one per value of it)
	Normalize string // hmac: digits or none
	HexLength int    // hmac: leading hex characters kept
	Template  *KeyTemplate
	Rotation  string
}

// Kinds of computed attributes.
const (
	KindHashMod  = "hashMod"
	KindHMAC     = "hmac"
	KindTemplate = "template"
)

// FNV1a32 is the 32-bit FNV-1a hash of the UTF-8 bytes of s.
func FNV1a32(s string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return h.Sum32()
}

// HashMod returns FNV1a32(s) mod n: the shard of an item, from the text
// of the attribute it is computed from.
func HashMod(s string, n int) int {
	if n <= 0 {
		return 0
	}
	return int(FNV1a32(s) % uint32(n))
}

// NormalizeDigits keeps only the ASCII digits of s: "123.456.789-09" ->
// "12345678909".
func NormalizeDigits(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// HMACHex returns the first hexLen hex characters of HMAC-SHA256(secret,
// input).
func HMACHex(secret []byte, input string, hexLen int) string {
	m := hmac.New(sha256.New, secret)
	_, _ = m.Write([]byte(input))
	s := hex.EncodeToString(m.Sum(nil))
	if hexLen > 0 && hexLen < len(s) {
		s = s[:hexLen]
	}
	return s
}

// Eval computes the attribute from values (the Input, for hmac the plain
// input value) and, for hmac, the secret selected by SecretBy.
func (c *Computed) Eval(values map[string]attr.Value, secret []byte) (attr.Value, error) {
	switch c.Kind {
	case KindHashMod:
		v, ok := values[c.Input]
		if !ok {
			return attr.Value{}, fmt.Errorf("no value for %s", c.Input)
		}
		return attr.Num(strconv.Itoa(HashMod(v.Str, c.Modulo))), nil
	case KindHMAC:
		v, ok := values[c.Input]
		if !ok {
			return attr.Value{}, fmt.Errorf("no value for %s", c.Input)
		}
		in := v.Str
		if c.Normalize == "digits" {
			in = NormalizeDigits(in)
		}
		return attr.Str(HMACHex(secret, in, c.HexLength)), nil
	case KindTemplate:
		s, err := c.Template.Render(values)
		if err != nil {
			return attr.Value{}, err
		}
		return attr.Str(s), nil
	}
	return attr.Value{}, fmt.Errorf("unknown computation %q", c.Kind)
}
