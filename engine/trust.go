package engine

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/engine/auth"
	"github.com/cardapio/cardapio/engine/iam"
	"github.com/cardapio/cardapio/internal/files"
)

// Trust is who may use a server and what they may do: the access keys of
// a credentials file, and the IAM policies attached to identities.
type Trust struct {
	// Keys are the credentials accepted; nil accepts any.
	Keys *auth.Keys
	// all are the policies attached to every identity; by those attached
	// to one, by access key ID, user name or principal ARN.
	all []*iam.Policy
	by  map[string][]*iam.Policy
	n   int
}

// LoadTrust reads a credentials file (none when empty) and policy
// attachments, each FILE (attached to every identity) or WHO=FILE, WHO an
// access key ID, a user name or a principal ARN of the credentials file
// (without one, an access key ID, as the requests are signed).
func LoadTrust(credentials string, policies []string) (*Trust, error) {
	t := &Trust{by: map[string][]*iam.Policy{}}
	if credentials != "" {
		k, err := auth.LoadKeys(credentials)
		if err != nil {
			return nil, err
		}
		t.Keys = k
	}
	for _, spec := range policies {
		who, file, found := strings.Cut(spec, "=")
		if !found {
			who, file = "", spec
		}
		if file == "" {
			return nil, fmt.Errorf("--policy %q: want FILE or WHO=FILE", spec)
		}
		p, err := LoadPolicy(file)
		if err != nil {
			return nil, err
		}
		if who == "" || who == "*" {
			t.all = append(t.all, p)
			t.n++
			continue
		}
		if t.Keys != nil && !t.known(who) {
			return nil, fmt.Errorf("--policy %s: no access key, user or principal ARN %q in %s", spec, who, credentials)
		}
		t.by[who] = append(t.by[who], p)
		t.n++
	}
	return t, nil
}

// known reports whether who names an identity of the keys.
func (t *Trust) known(who string) bool {
	for _, id := range t.Keys.Identities() {
		if id.AccessKey == who || id.Name == who || id.ARN == who {
			return true
		}
	}
	return false
}

// LoadPolicy reads an IAM policy document, at most iam.MaxDocument bytes.
func LoadPolicy(path string) (*iam.Policy, error) {
	data, err := files.ReadCapped(path, iam.MaxDocument, "a policy document")
	if err != nil {
		return nil, err
	}
	return iam.Parse(path, data)
}

// Attached is the number of policy attachments.
func (t *Trust) Attached() int { return t.n }

// Policies returns the function ServerOptions.Policies wants, or nil when
// no policy is attached (every request is then allowed).
func (t *Trust) Policies() func(*auth.Identity) []*iam.Policy {
	if t.n == 0 {
		return nil
	}
	return t.For
}

// For lists the policies attached to an identity.
func (t *Trust) For(id *auth.Identity) []*iam.Policy {
	out := append([]*iam.Policy(nil), t.all...)
	seen := map[string]bool{}
	for _, k := range []string{id.AccessKey, id.Name, id.ARN} {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, t.by[k]...)
		}
	}
	return out
}
