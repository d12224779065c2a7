package catalog

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Rates for the peak gate (capacity/estimate weighs them against the
// partition limits): how fast an operation runs at its peaks, as the
// model declares it.

// WindowDuration is the load's window, 0 when it declares none.
func (l LoadItem) WindowDuration() time.Duration {
	d, err := parseDuration(l.Window)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// PerSecond returns the rate a scenario load runs at: its PeakPerSecond
// when declared, else Count over Window, else its Rate; ok is false when
// the load declares none of them.
func (l LoadItem) PerSecond() (float64, bool) {
	switch {
	case l.PeakPerSecond != nil:
		return *l.PeakPerSecond, true
	case l.Count > 0 && l.Window != "":
		d, err := parseDuration(l.Window)
		if err != nil || d <= 0 {
			return 0, false
		}
		return l.Count / d.Seconds(), true
	case l.Rate != nil:
		return l.Rate.PerSecond(), true
	}
	return 0, false
}

// PerSecond returns the fastest rate a velocity declares (steady, peak,
// or a burst's volume over its window), in questions a second, and which
// of them it is; ok is false when it declares none.
func (v *Velocity) PerSecond() (rate float64, which string, ok bool) {
	if v == nil {
		return 0, "", false
	}
	consider := func(r float64, w string) {
		if r > rate {
			rate, which, ok = r, w, true
		}
	}
	if v.Steady != nil {
		consider(v.Steady.PerSecond(), "steady")
	}
	if v.Peak != nil {
		consider(v.Peak.PerSecond(), "peak")
	}
	if v.Burst != nil {
		if d := v.Burst.WindowDuration(); d > 0 {
			consider(v.Burst.Volume/d.Seconds(), "burst")
		}
	}
	return rate, which, ok
}

// checkLoads checks what the peak gate reads of scenario loads: focused
// attributes are declared and key a table or an index, and a rate can be
// told.
func (r *resolver) checkLoads() {
	keys := map[string]bool{}
	for _, x := range r.m.Indexes {
		for _, a := range x.Partition {
			keys[a] = true
		}
	}
	for _, e := range r.m.Entities {
		for _, k := range e.Key {
			if e.Table != nil && k.Attribute == e.Table.PartitionKey {
				for _, ph := range k.Template.Placeholders() {
					keys[ph] = true
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.raw.Scenarios)) {
		for i, l := range r.raw.Scenarios[name].Load {
			ptr := p("scenarios", name, "load", i)
			for _, a := range slices.Sorted(maps.Keys(l.Focus)) {
				fptr := ptr + "/focus/" + escapePtr(a)
				if r.attrRef(fptr, a) != nil && !keys[a] {
					r.errAt(fptr, true, "focus an attribute of a partition key (a table's key template or an index's partition)", "%s is in no partition key: focusing it moves no load onto one partition", a)
				}
			}
			if l.PeakPerSecond != nil && l.Count > 0 && l.Window != "" {
				if d, err := parseDuration(l.Window); err == nil && d > 0 && *l.PeakPerSecond < l.Count/d.Seconds() {
					r.errf(ptr+"/peakPerSecond", "the peak %v a second is below the load's average, %v in %s", *l.PeakPerSecond, l.Count, l.Window)
				}
			}
		}
	}
	r.oldTenant()
}

// oldTenant reads a load's tenant, the name the first models gave the pin
// focus now makes generic: tenant: any pins nothing (the default), and
// tenant: largest is focus on the model's one attribute whose skew names
// its largest values. Either way a finding asks for focus, which
// cardapio migrate writes.
func (r *resolver) oldTenant() {
	var skewed []string
	for _, a := range r.m.Attributes {
		if a.Skew != nil && len(a.Skew.Top) > 0 {
			skewed = append(skewed, a.Name)
		}
	}
	for si := range r.m.Scenarios {
		sc := &r.m.Scenarios[si]
		for i := range sc.Load {
			l := &sc.Load[i]
			if l.Tenant == "" {
				continue
			}
			ptr := p("scenarios", sc.Name, "load", i, "tenant") // largest or any: the schema holds it
			hint := "cardapio migrate rewrites it"
			switch {
			case len(l.Focus) > 0 || l.Tenant == "any":
				r.warn(r.m, ptr, CodeOldField, hint, "tenant is the old name of focus, and says nothing here: drop it")
			case len(skewed) == 1:
				l.Focus = map[string]string{skewed[0]: "largest"}
				r.warn(r.m, ptr, CodeOldField, hint, "tenant is the old name of focus: read as focus: {%s: largest}", skewed[0])
			default:
				r.warn(r.m, ptr, CodeOldField, "write focus: {ATTRIBUTE: largest} with the attribute whose largest value takes the load", "tenant: largest pins nothing: %s", oneSkew(skewed))
			}
		}
	}
}

func oneSkew(skewed []string) string {
	if len(skewed) == 0 {
		return "no attribute declares a skew with its largest values (skew.top)"
	}
	return "more than one attribute declares its largest values (" + strings.Join(skewed, ", ") + ")"
}
