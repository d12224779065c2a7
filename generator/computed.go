package generator

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// computedPlan is the function computing a computed attribute, identical
// to the catalog's (catalog.HashMod, catalog.HMACHex).
type computedPlan struct {
	Attr   *catalog.Attribute
	Func   string // ShardOf
	Sig    string // (contractID string) int64
	Body   string
	Doc    string
	Secret string // the secret type for hmac: TenantSecret
}

func (p *plan) computedFor(name string) *computedPlan {
	for _, c := range p.computed {
		if c.Attr.Name == name {
			return c
		}
	}
	return nil
}

func (p *plan) planComputed() error {
	secretTypes := map[string]bool{}
	for _, a := range p.m.Attributes {
		c := a.Computed
		if c == nil {
			continue
		}
		cp := &computedPlan{Attr: a, Func: p.names.claim("computed:"+a.Name, exported(a.Name)+"Of", "Func")}
		out := p.valueType(a)
		switch c.Kind {
		case catalog.KindHashMod:
			if c.Hash != "fnv1a32" {
				return fmt.Errorf("attribute %s: hash %q is not supported (want fnv1a32)", a.Name, c.Hash)
			}
			in := p.m.Attribute(c.Input)
			if in == nil {
				return fmt.Errorf("attribute %s: input %s is not in the dictionary", a.Name, c.Input)
			}
			it := p.valueType(in)
			v := unexported(c.Input)
			text := v
			switch it.kind {
			case kInt:
				text = "strconv.FormatInt(" + v + ", 10)"
			case kFloat:
				text = "strconv.FormatFloat(" + v + ", 'f', -1, 64)"
			case kString:
				if it.enum != nil {
					text = "string(" + v + ")"
				}
			}
			p.use("fnv1a32")
			cp.Sig = fmt.Sprintf("(%s %s) %s", v, it.Go(), out.Go())
			cp.Body = fmt.Sprintf("return %s(fnv1a32(%s) %% %d)\n", out.Go(), text, c.Modulo)
			cp.Doc = fmt.Sprintf("%s returns the %s of %s: the 32-bit FNV-1a hash of its UTF-8 bytes, mod %d. Every writer computes it the same way, never at random, so an item always knows its %s.",
				cp.Func, a.Name, c.Input, c.Modulo, a.Name)
		case catalog.KindHMAC:
			if c.Algorithm != "" && c.Algorithm != "sha256" {
				return fmt.Errorf("attribute %s: HMAC algorithm %q is not supported (want sha256)", a.Name, c.Algorithm)
			}
			st := "Secret"
			if c.Secret != "" && c.Secret != "global" {
				st = exported(c.Secret) + "Secret"
			}
			cp.Secret = p.names.claim("secret:"+st, st, "Type")
			secretTypes[cp.Secret] = true
			v := unexported(c.Input)
			norm := v
			if c.Normalize == "digits" {
				p.use("digitsOnly")
				norm = "digitsOnly(" + v + ")"
			}
			p.use("hmacHex")
			cp.Sig = fmt.Sprintf("(secret %s, %s string) string", cp.Secret, v)
			cp.Body = fmt.Sprintf("return hmacHex(secret.Key, %s, %d)\n", norm, c.HexLength)
			var doc strings.Builder
			fmt.Fprintf(&doc, "%s computes %s from %s: the first %d hex characters of HMAC-SHA256 with the secret", cp.Func, a.Name, c.Input, c.HexLength)
			if c.SecretBy != "" {
				fmt.Fprintf(&doc, " of the %s (one secret per %s)", c.SecretBy, c.SecretBy)
			}
			doc.WriteString(" over ")
			if c.Normalize == "digits" {
				doc.WriteString("its digits only (punctuation is dropped first)")
			} else {
				doc.WriteString("its UTF-8 bytes")
			}
			fmt.Fprintf(&doc, ". %s itself never enters a key.", c.Input)
			if c.Rotation != "" {
				doc.WriteString(" Rotation: " + sentence(c.Rotation))
			}
			cp.Doc = doc.String()
		case catalog.KindTemplate:
			var args []string
			sc := func(name string) (string, *gotype, bool) {
				at := p.m.Attribute(name)
				if at == nil {
					return "", nil, false
				}
				return unexported(name), p.valueType(at), true
			}
			for _, ph := range c.Template.Placeholders() {
				x, t, ok := sc(ph)
				if !ok {
					return fmt.Errorf("attribute %s: template placeholder {%s} is not an attribute", a.Name, ph)
				}
				args = append(args, x+" "+t.Go())
			}
			x, err := p.templateExpr(c.Template, sc)
			if err != nil {
				return fmt.Errorf("attribute %s: %w", a.Name, err)
			}
			cp.Sig = fmt.Sprintf("(%s) (string, error)", strings.Join(args, ", "))
			cp.Body = fmt.Sprintf("var k keyBuilder\nv := %s\nif k.err != nil {\nreturn \"\", fmt.Errorf(\"%s: %%w\", k.err)\n}\nreturn v, nil\n", x, a.Name)
			cp.Doc = fmt.Sprintf("%s renders %s from the template %s.", cp.Func, a.Name, c.Template.Text)
		default:
			return fmt.Errorf("attribute %s: computation %q is not supported", a.Name, c.Kind)
		}
		p.computed = append(p.computed, cp)
	}
	return nil
}

// SecretTypes lists the secret types the computed attributes take.
func (p *plan) SecretTypes() []string {
	var out []string
	for _, c := range p.computed {
		if c.Secret != "" && !containsStr(out, c.Secret) {
			out = append(out, c.Secret)
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
