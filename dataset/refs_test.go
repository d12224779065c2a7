package dataset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset/datasettest"
)

// refModels are the models whose references are checked: both examples,
// the independent models of the commands' tests and this package's own.
var refModels = []string{"../model.yaml", "../examples/orders/model.yaml",
	"../internal/cli/testdata/models/library.yaml", "../internal/cli/testdata/models/helpdesk.yaml",
	"../internal/cli/testdata/models/telemetry.yaml", "testdata/courses.yaml",
	"testdata/library.yaml", "../catalog/testdata/valid/dataset.yaml",
	"../internal/cli/testdata/datamodels/credit.yaml", "../internal/cli/testdata/models/ridehail.yaml"}

// knownGaps are the references a model's rules do not make name an
// item, and why.
var knownGaps = map[string]string{
	// eventType ChargeCreated draws its chargeRef (format: pixTxid):
	// the event is a cousin of the charges of its contract, and no rule
	// of the model picks the charge of the event's own instalment.
	"model.yaml: EVENT -> CHARGE": "the model's EVENT rule draws chargeRef",
}

// values is what an item names: its attributes, and the placeholders its
// keys hold (key-only attributes are stored nowhere else).
func values(e *catalog.Entity, it attr.Item) map[string]string {
	out := map[string]string{}
	for _, a := range it {
		if a.Value.Type == attr.S || a.Value.Type == attr.N {
			out[a.Name] = a.Value.Str
		}
	}
	for _, k := range e.Key {
		v, ok := it.Get(k.Attribute)
		if !ok {
			continue
		}
		if m, ok := k.Template.Match(v.Str); ok {
			for ph, x := range m {
				if _, set := out[ph]; !set {
					out[ph] = x
				}
			}
		}
	}
	return out
}

// keyOf renders an entity's keys from names, false when one is missing.
func keyOf(m *catalog.Model, e *catalog.Entity, vals map[string]string, sep string) (string, bool) {
	var parts []string
	for _, k := range e.Key {
		in := map[string]attr.Value{}
		for _, ph := range k.Template.Placeholders() {
			v, ok := vals[ph]
			if !ok {
				return "", false
			}
			in[ph] = attr.Str(v)
			if a := m.Attribute(ph); a != nil && a.Type == attr.N {
				in[ph] = attr.Num(v)
			}
		}
		s, err := k.Template.RenderSep(in, sep)
		if err != nil {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "|"), true
}

// TestReferencesExist: in every checked model, each item that names an
// item of another entity names one the population holds. An item names
// an item of entity R when it carries every placeholder of R's keys
// (an instalment names its contract and its debtor's profile, a limit
// its profile), or through a reference the model declares (dataset
// ref, the copies its rules make of the referenced item's attributes:
// a loan's borrower is a member's memberKey), whatever tree R is in.
// Entities whose keys are made of R's placeholders alone, and R's own
// items, are not references.
func TestReferencesExist(t *testing.T) {
	for _, path := range refModels {
		t.Run(strings.TrimPrefix(path, "../"), func(t *testing.T) {
			m := loadModel(t, path)
			p := population(t, path, datasettest.SmallScale(path), 5)
			items, err := p.Items()
			require.NoError(t, err)
			ents := map[string]*catalog.Entity{}
			for _, n := range p.Nodes {
				ents[n.Name()] = n.Entity
			}
			keys := map[string]map[string]bool{}
			type named struct {
				entity string
				vals   map[string]string
			}
			var all []named
			for _, it := range items {
				e := ents[it.Entity]
				vals := values(e, it.Item)
				k, ok := keyOf(m, e, vals, m.Separator)
				require.True(t, ok, "%s: its own key from its values", it.Entity)
				if keys[it.Entity] == nil {
					keys[it.Entity] = map[string]bool{}
				}
				keys[it.Entity][k] = true
				all = append(all, named{it.Entity, vals})
			}
			checked := map[string]int{}
			skipped := map[string]string{}
			for _, x := range all {
				e := ents[x.entity]
				for _, r := range p.Nodes {
					re := r.Entity
					if re == e || !covers(m, e, re) {
						continue
					}
					vals := x.vals
					if rn := p.Node(x.entity); rn.Rules != nil && rn.Rules.Ref != nil && rn.Rules.Ref.Entity == re {
						vals = renamed(rn.Rules, vals)
					}
					k, ok := keyOf(m, re, vals, m.Separator)
					if !ok {
						continue
					}
					pair := x.entity + " -> " + re.Name
					if why, ok := knownGaps[strings.TrimPrefix(path, "../")+": "+pair]; ok {
						skipped[pair] = why
						continue
					}
					checked[pair]++
					if !keys[re.Name][k] {
						assert.Fail(t, "a reference to no item", "%s names %s %s, which the population does not hold", x.entity, re.Name, k)
						return
					}
				}
			}
			t.Logf("references checked: %v; not checked: %v", checked, skipped)
			require.NotEmpty(t, checked)
		})
	}
}

// covers reports whether an item of e names an item of r: e carries
// every placeholder of r's keys (by name, or as a reference's copy), one
// of which r introduces (its identifier, which r's parents do not carry)
// and, unless r is a root, e does not introduce too (a reading's day and
// an alert's day are each their own; an enrolment's studentId, its own
// sort key, names a student).
func covers(m *catalog.Model, e, r *catalog.Entity) bool {
	of := placeholders(r)
	if len(of) == 0 {
		return false
	}
	mine := introduced(m, e)
	root := r.Population == nil || r.Population.Per == ""
	for ph := range introduced(m, r) {
		if !mine[ph] || root {
			return true
		}
	}
	return false
}

func placeholders(e *catalog.Entity) map[string]bool {
	out := map[string]bool{}
	for _, k := range e.Key {
		for _, ph := range k.Template.Placeholders() {
			out[ph] = true
		}
	}
	return out
}

// introduced is the placeholders of e's keys its parents' keys lack.
func introduced(m *catalog.Model, e *catalog.Entity) map[string]bool {
	out := placeholders(e)
	if e.Population != nil && e.Population.Per != "" {
		if par := m.Entity(e.Population.Per); par != nil {
			for ph := range placeholders(par) {
				delete(out, ph)
			}
		}
	}
	return out
}

// renamed adds, for a declared reference, the referenced attributes the
// item's rules copy under other names (borrower: {copy: memberKey}).
func renamed(er *catalog.EntityRules, vals map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range vals {
		out[k] = v
	}
	for an, rl := range er.Rules {
		if rl.Kind == catalog.RuleCopy {
			from := rl.Name
			if _, after, ok := strings.Cut(from, "."); ok {
				from = after
			}
			if v, ok := vals[an]; ok {
				out[from] = v
			}
		}
	}
	return out
}
