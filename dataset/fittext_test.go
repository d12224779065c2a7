package dataset

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/cardapio/cardapio/catalog"
)

// TestFitText: realistic texts are held to their domain's lengths, cut
// at a space when one fits, lengthened with more of the same.
func TestFitText(t *testing.T) {
	n := func(v int) *int { return &v }
	more := func(b []byte) []byte { return append(b, "Ação rápida"...) }
	for _, c := range []struct {
		d        catalog.Domain
		in, want string
	}{
		{catalog.Domain{}, "anything at all", "anything at all"},
		{catalog.Domain{MaxLength: n(60)}, "Short enough.", "Short enough."},
		{catalog.Domain{MaxLength: n(20)}, "Continuously measure the government and research", "Continuously measure"},
		{catalog.Domain{MaxLength: n(8)}, "Nospacesinthisone", "Nospaces"},
		{catalog.Domain{MaxLength: n(6)}, "Ação rápida e boa", "Ação"},
		{catalog.Domain{MinLength: n(15), MaxLength: n(20)}, "Oi", "Oi Ação rápida Ação"},
		{catalog.Domain{MinLength: n(3)}, "", "Ação rápida"},
	} {
		got := string(fitText(&c.d, []byte(c.in), more))
		assert.Equal(t, c.want, got, "%q", c.in)
		if c.d.MaxLength != nil {
			assert.LessOrEqual(t, utf8.RuneCountInString(got), *c.d.MaxLength)
		}
		if c.d.MinLength != nil {
			assert.GreaterOrEqual(t, utf8.RuneCountInString(got), *c.d.MinLength)
		}
	}
}
