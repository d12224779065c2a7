package loadgen

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/engine"
)

// Footprint is what a run is expected to hold in memory before it
// starts: the embedded engine's tables (in process only) and the
// runner's index of its loads' subjects.
type Footprint struct {
	Items   float64 // items of the population the run loads
	Engine  float64 // bytes the embedded engine holds (0 against a server)
	Runner  float64 // bytes of the runner's index of the subjects
	Total   float64
	InProc  bool
	Subject float64 // items kept as subjects
}

// chunkBytes is what the runner holds for a run of chunkTrees trees
// holding subjects of a load (a subjectChunk and its slice's growth):
// the subjects themselves are generated again when their arrivals start.
const chunkBytes = 48

// footprint estimates what a part of a run of pop holds: the engine's
// documented figures (engine.DefaultMemoryFactor times the bytes the
// tables store, plus engine.DefaultMemoryFloor) for the population in
// process, and the runner's index of the loads' subjects: at most a
// subjectChunk for every chunkTrees subjects, whatever the items weigh.
// Against a server or AWS the client's memory does not grow with the
// population beyond that index.
func footprint(pop *dataset.Population, loads []*catalog.LoadItem, parts int, inProc bool) Footprint {
	sizes := pop.Footprint(capacity.Default())
	var f Footprint
	f.InProc = inProc
	stored := 0.0
	for _, s := range sizes {
		f.Items += s.Items
		stored += s.StoredBytes
	}
	for _, l := range loads {
		if l.Plan == nil || l.Plan.Subjects == nil {
			continue
		}
		s := sizes[l.Plan.Subjects.Entity]
		f.Subject += s.Items
		f.Runner += math.Ceil(s.Items/chunkTrees) * chunkBytes
	}
	// A part holds its share of the items, and the index of every
	// subject: each part numbers the whole population's (pieces).
	n := float64(max(parts, 1))
	f.Items, f.Subject = f.Items/n, f.Subject/n
	if inProc {
		f.Engine = stored/n*engine.DefaultMemoryFactor + engine.DefaultMemoryFloor
	}
	f.Total = f.Engine + f.Runner
	return f
}

// available returns the memory the process may still take, the least
// of what the system says: MemAvailable (/proc/meminfo), the cgroup's
// limit less its use, the Go memory limit when GOMEMLIMIT sets one, and
// the room an address-space limit leaves; ok is false when none says.
func available() (bytes float64, source string, ok bool) {
	bytes = math.Inf(1)
	take := func(n float64, src string) {
		if n < bytes {
			bytes, source, ok = n, src, true
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(l, "MemAvailable:"); found {
				if kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64); err == nil {
					take(kb*1024, "MemAvailable of /proc/meminfo")
				}
			}
		}
	}
	for _, cg := range [][2]string{{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}} {
		limit, lok := readNumber(cg[0])
		used, uok := readNumber(cg[1])
		if lok && uok && limit < 1<<60 {
			take(max(limit-used, 0), "the cgroup's memory limit less its use ("+cg[0]+")")
		}
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
			take(float64(l), "GOMEMLIMIT")
		}
	}
	if limit, mapped, has := engine.AddressSpace(); has {
		take(float64(limit)-float64(mapped), "the address-space limit (ulimit -v) less what the process maps")
	}
	return bytes, source, ok
}

func readNumber(path string) (float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return x, err == nil
}

// fits refuses a run whose footprint passes the memory available (or
// o.Available when set), with the figures and the population scale that
// would fit.
func fits(f Footprint, o Options) error {
	avail, source, ok := float64(o.Available), "the memory the run is given", o.Available > 0
	if !ok {
		avail, source, ok = available()
	}
	if !ok || f.Total <= avail {
		return nil
	}
	// The footprint is about proportional to the population: the scale
	// that leaves a fifth of the memory free, rounded down to 1, 2 or 5
	// of a power of ten.
	fit := roundDown125(o.Population * 0.8 * avail / f.Total)
	where := "in the embedded engine in process"
	if !f.InProc {
		where = "sent to the server"
	}
	msg := fmt.Sprintf("the run would hold about %s in memory (%s items %s", dataset.BytesText(f.Total), count(f.Items), where)
	if f.InProc {
		msg += fmt.Sprintf(": %s for the engine's tables", dataset.BytesText(f.Engine))
	}
	if f.Subject > 0 {
		msg += fmt.Sprintf(", %s for the runner's index of %s subjects", dataset.BytesText(f.Runner), count(f.Subject))
	}
	msg += fmt.Sprintf("), more than the %s available (%s): give --population %g (or --scale %g)", dataset.BytesText(avail), source, fit, fit)
	if f.InProc {
		msg += ", or run against a server (--endpoint-url)"
	}
	return inputErr("%s", msg)
}

func roundDown125(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= x {
			return m * p
		}
	}
	return p
}

func count(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f billion", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", n/1e6)
	}
	return fmt.Sprintf("%.0f", n)
}
