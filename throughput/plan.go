package throughput

// plan is one admission decision in the making: every charge of the
// requests, and the buckets they need, summed per bucket so that two
// charges on one partition (or one table) must fit together.
type plan struct {
	now, sec int64
	charges  []charge
	needs    []need
}

// charge is one request's units on one partition of one resource.
type charge struct {
	t     *table
	res   *resource
	part  *partition
	dir   int
	units float64
	req   int
	hash  uint64
	key   []byte
	limit int // index of the table-level need
	cap   int // index of the partition need
}

type need struct {
	b     *bucket
	units float64
	ok    bool
}

func (p *plan) reset(now, sec int64) {
	clear(p.charges)
	p.now, p.sec = now, sec
	p.charges, p.needs = p.charges[:0], p.needs[:0]
}

// add places request r (number req) of table t in the plan.
func (p *plan) add(c *config, t *table, req int, r *Request) {
	res := t.base
	if r.Index != "" {
		res = t.gsis[r.Index]
	}
	if res != nil {
		p.charge(c, t, res, req, read, r.Hash, r.Key, r.Read)
		p.charge(c, t, res, req, write, r.Hash, r.Key, r.Write)
	}
	for i := range r.Indexes {
		ix := &r.Indexes[i]
		g := t.gsis[ix.Name]
		if g == nil {
			continue
		}
		p.charge(c, t, g, req, write, ix.Hash, ix.Key, ix.Write)
		p.charge(c, t, g, req, read, ix.Hash, ix.Key, ix.Read)
	}
}

func (p *plan) charge(c *config, t *table, res *resource, req, dir int, hash uint64, key []byte, units float64) {
	if !(units > 0) || !finite(units) {
		return
	}
	res.advance(c, p.now, p.sec)
	i := res.find(hash)
	part := res.parts[i]
	if part.roll(p.sec, res.partCap, c.theta, c.splitAfter) && len(res.parts) < c.maxParts {
		if cut, ok := part.cut(); ok {
			res.splitAt(c, i, cut, true, p.now, p.sec)
			part = res.parts[res.find(hash)]
		}
	}
	part.cap[dir].refill(p.now)
	p.charges = append(p.charges, charge{
		t: t, res: res, part: part, dir: dir, units: units, req: req, hash: hash, key: key,
		limit: p.need(&res.flow[dir].limit, units),
		cap:   p.need(&part.cap[dir], units),
	})
}

func (p *plan) need(b *bucket, units float64) int {
	for i := range p.needs {
		if p.needs[i].b == b {
			p.needs[i].units += units
			return i
		}
	}
	p.needs = append(p.needs, need{b: b, units: units})
	return len(p.needs) - 1
}

// decide admits the plan (consuming its units) or refuses it (recording
// throttled units and keys) and reports which.
func (p *plan) decide(c *config) bool {
	all := true
	for i := range p.needs {
		n := &p.needs[i]
		n.ok = n.b.fits(n.units)
		all = all && n.ok
	}
	if all {
		for i := range p.needs {
			p.needs[i].b.take(p.needs[i].units)
		}
	}
	for i := range p.charges {
		ch := &p.charges[i]
		if p.needs[ch.limit].ok {
			// The request reached the partition: it counts as heat,
			// whether the partition served it or not.
			ch.part.note(ch.dir, ch.hash, ch.units, ch.res.partCap[ch.dir])
		}
		s := ch.part.slot(p.sec)
		f := &ch.res.flow[ch.dir]
		if all {
			ch.part.total[ch.dir].consumed += ch.units
			s.consumed[ch.dir] += ch.units
			f.total.consumed += ch.units
			f.units += ch.units
			continue
		}
		ch.part.total[ch.dir].throttled += ch.units
		s.throttled[ch.dir] += ch.units
		f.total.throttled += ch.units
		if _, bad := p.fault(ch); bad {
			ch.res.top.note(ch.hash, ch.key, ch.units)
		}
	}
	return all
}

// fault says which limit refused a charge, if any: the table-level one
// first, as the more fundamental.
func (p *plan) fault(ch *charge) (limit, bool) {
	switch {
	case !p.needs[ch.limit].ok:
		return ch.res.flow[ch.dir].binding, true
	case !p.needs[ch.cap].ok:
		return keyRange, true
	}
	return 0, false
}

// throttle builds request req's Throttle from its refused charges, in
// charge order (the table or index it reads or writes first, then the
// indexes a write touches), one reason per resource and direction, and
// counts the reasons.
func (p *plan) throttle(req int) *Throttle {
	var t *Throttle
	for i := range p.charges {
		ch := &p.charges[i]
		if ch.req != req {
			continue
		}
		l, bad := p.fault(ch)
		if !bad {
			continue
		}
		index := ch.res.index != ""
		x := reasonIndex(index, ch.dir, l)
		tr := ThrottlingReason{Reason: reasons[x], Resource: ch.res.arn}
		if t == nil {
			t = newThrottle(ch.res.spec.Mode == OnDemand, index, l)
		} else if hasResource(t, tr) {
			continue
		}
		t.Reasons = append(t.Reasons, tr)
		ch.t.reasons[x]++
	}
	return t
}

func hasResource(t *Throttle, tr ThrottlingReason) bool {
	for _, x := range t.Reasons {
		if x == tr {
			return true
		}
	}
	return false
}
