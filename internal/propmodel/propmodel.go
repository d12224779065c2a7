// Package propmodel writes the random valid models the property tests
// hold every command to: the generator's (every model generates a package
// that compiles) and the command line's (every command runs on every
// model check accepts).
package propmodel

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// Random builds a small valid model from the parts of the format:
// one or two tables (with or without a sort key and a discriminator),
// entities keyed by templates with literals, placeholders and zero
// padding, attributes of every type (enums, civil dates, instants,
// cents, lists, maps, sets, binary), a secondary index with a
// multi-attribute key (sharded with a computed shard, with a synthetic
// fallback, with each projection), access patterns on the table and the
// index, and operations (a conditional put, a versioned update, a read
// that binds, a transaction) with their budgets.
//
// Random stays one function: it writes one YAML document top to bottom,
// and every section reads the handful of choices drawn at its top.
func Random(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 99))
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	hasSK := r.IntN(4) > 0
	disc := r.IntN(2) == 0
	sharded := r.IntN(3) == 0
	withIndex := sharded || r.IntN(3) > 0
	multi := r.IntN(2) == 0
	synthetic := r.IntN(2) == 0
	nEnt := 1 + r.IntN(3)
	padded := r.IntN(2) == 0 // a narrow padding

	w("formatVersion: 1\nname: prop%d\n", seed)
	w("tables:\n  items:\n    partitionKey: pk\n")
	if hasSK {
		w("    sortKey: sk\n")
	}
	if disc {
		w("    discriminator: kind\n")
	}
	w("    billing: {mode: onDemand}\n")
	w("attributes:\n")
	w("  pk: {type: S, description: partition key}\n")
	if hasSK {
		w("  sk: {type: S, description: sort key}\n")
	}
	if disc {
		w("  kind: {type: S, description: entity}\n")
	}
	w("  owner: {type: S, description: who owns the item}\n")
	w("  ref: {type: S, description: a reference}\n")
	w("  seq: {type: N, unit: sequence, description: a sequence number}\n")
	w("  state: {type: S, description: a state, enum: [NEW, DONE, GONE]}\n")
	w("  amount: {type: N, unit: cents, description: money}\n")
	w("  ratio: {type: N, description: a fraction}\n")
	w("  day: {type: S, unit: civilDate, description: a civil day}\n")
	w("  at: {type: S, unit: instant, description: an instant}\n")
	w("  flag: {type: BOOL, description: a flag}\n")
	if r.IntN(2) == 0 {
		w("  tags: {type: L, description: tags, items: {type: S}, maxItems: 5}\n")
		w("  prefs: {type: M, description: preferences, fields: {sms: {type: BOOL, optional: true}, mail: {type: BOOL}}}\n")
	} else {
		w("  tags: {type: L, description: tags}\n")
		w("  prefs: {type: M, description: preferences}\n")
	}
	w("  labels: {type: SS, description: labels}\n")
	w("  blob: {type: B, description: bytes}\n")
	w("  version: {type: N, unit: version, description: optimistic lock}\n")
	if sharded {
		w("  shard: {type: N, description: shard, computed: {kind: hashMod, hash: fnv1a32, input: ref, modulo: 4}}\n")
	}
	samples := map[string]string{
		"owner": "o1", "ref": "r1", "seq": "7", "state": "NEW", "amount": "1250", "ratio": "0.25",
		"day": `"2026-03-01"`, "at": `"2026-03-01T10:00:00Z"`, "flag": "true", "tags": "[a, b]",
		"prefs": "{sms: true, mail: false}", "labels": `[x, y]`, "blob": `"AQID"`, "version": "1",
	}
	if sharded {
		samples["shard"] = fmt.Sprint(catalog.HashMod("r1", 4))
	}
	payload := []string{"amount", "ratio", "day", "at", "flag", "tags", "prefs", "labels", "blob"}
	w("entities:\n")
	type ent struct {
		name, pkT, skT string
		keyAttrs       []string
	}
	var ents []ent
	var e1attrs map[string]string
	for i := 1; i <= nEnt; i++ {
		e := ent{name: fmt.Sprintf("E%d", i)}
		e.pkT = fmt.Sprintf("E%d#{owner}", i)
		e.keyAttrs = []string{"owner"}
		if hasSK {
			switch r.IntN(3) {
			case 0:
				e.skT = "META"
			case 1:
				e.skT = "R#{ref}"
				e.keyAttrs = append(e.keyAttrs, "ref")
			default:
				width := 3
				if padded {
					width = 2
				}
				e.skT = fmt.Sprintf("R#{ref}#S#{seq:%02d}", width)
				e.keyAttrs = append(e.keyAttrs, "ref", "seq")
			}
		}
		ents = append(ents, e)
		w("  %s:\n    table: items\n    key:\n      pk: %q\n", e.name, e.pkT)
		if hasSK {
			w("      sk: %q\n", e.skT)
		}
		w("    attributes:\n")
		attrs := map[string]string{}
		for _, k := range e.keyAttrs {
			attrs[k] = "key"
			if r.IntN(2) == 0 || i == 1 {
				attrs[k] = "required"
			}
		}
		// The first entity carries what the index and operations need.
		if i == 1 {
			for _, a := range []string{"owner", "ref", "state", "version", "day"} {
				attrs[a] = "required"
			}
			if sharded {
				attrs["shard"] = "required"
			}
		}
		for _, a := range payload {
			switch r.IntN(3) {
			case 0:
				attrs[a] = "required"
			case 1:
				attrs[a] = "optional"
			}
		}
		if i == 1 {
			e1attrs = attrs
		}
		var names []string
		for a := range attrs {
			names = append(names, a)
		}
		sortStrings(names)
		var sample []string
		for _, a := range names {
			w("      %s: %s\n", a, attrs[a])
			sample = append(sample, a+": "+samples[a])
		}
		for _, a := range e.keyAttrs {
			if _, ok := attrs[a]; !ok {
				sample = append(sample, a+": "+samples[a])
			}
		}
		w("    samples:\n      s1: {%s}\n", strings.Join(sample, ", "))
		if i == 1 {
			var s2 []string
			for _, f := range sample {
				if strings.HasPrefix(f, "version: ") {
					f = "version: 2"
				}
				s2 = append(s2, f)
			}
			w("      s2: {%s}\n", strings.Join(s2, ", "))
		}
	}
	var part, sortAttrs []string
	if withIndex {
		part = []string{"owner"}
		if multi {
			part = append(part, "state")
		}
		if sharded {
			part = append(part, "shard")
		}
		switch r.IntN(3) {
		case 0:
			sortAttrs = []string{"day"}
		case 1:
			sortAttrs = []string{"day", "ref"}
		}
		proj := []string{"{type: ALL}", "{type: KEYS_ONLY}", "{type: INCLUDE, attributes: [version]}"}[r.IntN(3)]
		w("indexes:\n  GSI1:\n    table: items\n    partition: [%s]\n", strings.Join(part, ", "))
		if len(sortAttrs) > 0 {
			w("    sort: [%s]\n", strings.Join(sortAttrs, ", "))
		}
		w("    projection: %s\n    alarm: throttles\n", proj)
		if sharded {
			w("    shards: {attribute: shard, count: 4}\n")
		}
		if synthetic && (len(part) > 1 || len(sortAttrs) > 1) {
			var pt []string
			for _, a := range part {
				if a == "shard" {
					pt = append(pt, "{shard:02}")
				} else {
					pt = append(pt, "{"+a+"}")
				}
			}
			w("    synthetic:\n      partition: {attribute: GSI1PK, template: %q}\n", "X#"+strings.Join(pt, "#"))
			if len(sortAttrs) > 0 {
				var st []string
				for _, a := range sortAttrs {
					st = append(st, "{"+a+"}")
				}
				w("      sort: {attribute: GSI1SK, template: %q}\n", strings.Join(st, "#"))
			}
		}
	}
	w("accessPatterns:\n")
	e1 := ents[0]
	w("  AP01:\n    question: one item by key\n    askedBy: [app]\n    consistency: eventual\n    answer:\n      table: items\n")
	if hasSK {
		w("      operation: GetItem\n      key:\n        pk: {eq: %q}\n        sk: {eq: %q}\n", e1.pkT, e1.skT)
	} else {
		w("      operation: GetItem\n      key:\n        pk: {eq: %q}\n", e1.pkT)
	}
	w("  AP02:\n    question: the owner's items\n    askedBy: [app]\n    consistency: eventual\n    answer:\n      table: items\n      key:\n        pk: {eq: %q}\n", e1.pkT)
	if withIndex {
		w("  AP03:\n    question: by index\n    askedBy: [job]\n    consistency: eventual\n    answer:\n      index: GSI1\n      key:\n")
		for _, a := range part {
			w("        %s: {eq: %q}\n", a, "{"+a+"}")
		}
		if len(sortAttrs) > 0 && r.IntN(2) == 0 {
			w("        %s: {beginsWith: %q}\n", sortAttrs[0], "{"+sortAttrs[0]+"}")
		}
		if sharded {
			w("      shards: {fanOut: all, workers: 2}\n")
		}
		w("      pageSize: 25\n")
	}
	// Operations.
	keyParams := func() string {
		var ps []string
		for _, a := range e1.keyAttrs {
			ps = append(ps, fmt.Sprintf("      %s: {sample: %s}", a, samples[a]))
		}
		return strings.Join(ps, "\n")
	}
	w("operations:\n")
	var required []string
	for a, pr := range e1attrs {
		if pr == "required" && a != "shard" {
			required = append(required, a)
		}
	}
	sortStrings(required)
	w("  Create:\n    params:\n")
	for _, a := range required {
		w("      %s: {sample: %s}\n", a, samples[a])
	}
	for _, a := range e1.keyAttrs {
		if e1attrs[a] != "required" {
			w("      %s: {sample: %s}\n", a, samples[a])
		}
	}
	w("    steps:\n      - id: create\n        put:\n          entity: E1\n          item:\n")
	for _, a := range required {
		w("            %s: \"{%s}\"\n", a, a)
	}
	if sharded {
		w("            shard: %s\n", samples["shard"])
	}
	w("          condition: attribute_not_exists(pk)\n          onConditionFailed: {meaning: already created (a retry), outcome: succeed}\n          before: absent\n")
	w("    budgets:\n      new: {wru: 4}\n")
	w("  Advance:\n    params:\n%s\n      expected: {attribute: version, sample: 1}\n      next: {attribute: state, sample: DONE}\n", keyParams())
	if !containsKey(e1.keyAttrs, "ref") {
		// With synthetic keys, the update that moves the item in GSI1
		// needs the ref its shard is computed from.
		w("      ref: {sample: r1}\n")
	}
	w("    steps:\n      - id: advance\n        update:\n          entity: E1\n")
	w("          update: \"SET #st = :next, version = version + :one\"\n          condition: \"version = :expected\"\n          names: {\"#st\": state}\n")
	w("          values: {\":next\": \"{next}\", \":one\": 1, \":expected\": \"{expected}\"}\n")
	w("          onConditionFailed: {meaning: the item changed meanwhile, outcome: retry}\n          before: s1\n")
	w("    budgets:\n      move: {wru: 4}\n      race: {wru: 1, failedStep: advance}\n")
	if nEnt >= 2 && r.IntN(3) > 0 {
		e2 := ents[1]
		var ps []string
		for _, a := range append(append([]string{}, e1.keyAttrs...), e2.keyAttrs...) {
			if !containsKey(ps, a) {
				ps = append(ps, a)
			}
		}
		w("  Copy:\n    params:\n")
		for _, a := range ps {
			w("      %s: {sample: %s}\n", a, samples[a])
		}
		w("    steps:\n      - id: read\n        get:\n          entity: E1\n          consistentRead: true\n          sample: s1\n")
		w("          onMissing: {meaning: nothing to copy, outcome: fail}\n        bind: [state, day]\n")
		w("      - id: write\n        transaction:\n          why: both or neither\n          items:\n")
		w("            - id: mark\n              update:\n                entity: E1\n                update: \"SET version = version + :one\"\n                values: {\":one\": 1}\n                before: s1\n")
		w("            - id: stamp\n              conditionCheck:\n                entity: E2\n                condition: attribute_exists(pk)\n                onConditionFailed: {meaning: the other item is gone, outcome: fail}\n                before: s1\n")
		w("    budgets:\n      copy: {wru: 6, rru: 1}\n")
	}
	return b.String()
}

func containsKey(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
