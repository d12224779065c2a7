package calc

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func eval(t *testing.T, src string, vars map[string]float64) (float64, bool) {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return e.Eval(func(n string) (float64, bool) { v, ok := vars[n]; return v, ok })
}

func TestEval(t *testing.T) {
	vars := map[string]float64{"principal": 1000000, "rate": 0.015, "term": 12, "LOAN.fee": 250}
	for _, c := range []struct {
		src  string
		want float64
	}{
		{"1 + 2 * 3", 7},
		{"(1 + 2) * 3", 9},
		{"10 - 4 - 3", 3},
		{"12 / 4 / 3", 1},
		{"-2 * -3", 6},
		{"+5", 5},
		{"pow(2, 10)", 1024},
		{"pow(2, -1)", 0.5},
		{"min(3, 1, 2) + max(4, 9)", 10},
		{"abs(-2.5) + floor(1.7) + ceil(1.2)", 5.5},
		{"LOAN.fee * 2", 500},
		{"1.5e3", 1500},
		{"principal * rate / (1 - pow(1 + rate, -term))", 1000000 * 0.015 / (1 - math.Pow(1.015, -12))},
	} {
		got, ok := eval(t, c.src, vars)
		if !ok || math.Abs(got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %v, %v; want %v", c.src, got, ok, c.want)
		}
	}
}

func TestEvalUndefined(t *testing.T) {
	for _, src := range []string{"1 / 0", "x / (y - y)", "missing + 1", "pow(10, 400)", "pow(-8, 0.5)"} {
		if v, ok := eval(t, src, map[string]float64{"x": 1, "y": 2}); ok {
			t.Errorf("%s = %v, want no value", src, v)
		}
	}
}

func TestNames(t *testing.T) {
	e, err := Parse("a * b + a / LOAN.c")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.Names(), ","); got != "a,b,LOAN.c" {
		t.Errorf("names %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src string
		col int
		has string
	}{
		{"", 1, "empty"},
		{"a ^ 2", 3, "pow(x, y)"},
		{"a % 2", 3, "not an operator"},
		{"a && b", 3, "not an operator"},
		{`"x" + 1`, 1, "not a number"},
		{"f(1)", 1, "unknown function f"},
		{"os.Exit(1)", 1, "only"},
		{"pow(1)", 1, "takes 2"},
		{"a[0]", 1, "a formula holds"},
		{"func() {}", 1, ""},
		{"1 +", 4, ""},
		{"0x10", 1, "plain decimal"},
		{"a\nb", 2, "one line"},
		{strings.Repeat("(", 30) + "1" + strings.Repeat(")", 30), 0, "deeper"},
		{strings.Repeat("1+", 30) + "1", 0, "deeper"},
		{"min(" + strings.Repeat("1,", 200) + "1)", 0, "terms"},
		{strings.Repeat("a", MaxLen+1), MaxLen + 1, "at most"},
	} {
		_, err := Parse(c.src)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%.30q): %v, want an *Error", c.src, err)
			continue
		}
		if c.col != 0 && pe.Col != c.col {
			t.Errorf("Parse(%.30q): column %d, want %d (%v)", c.src, pe.Col, c.col, err)
		}
		if !strings.Contains(pe.Msg, c.has) {
			t.Errorf("Parse(%.30q): %q, want it to say %q", c.src, pe.Msg, c.has)
		}
	}
}

func TestRound(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int
		m    Mode
		want float64
	}{
		{2.5, 0, HalfEven, 2}, {3.5, 0, HalfEven, 4}, {-2.5, 0, HalfEven, -2},
		{2.5, 0, HalfUp, 3}, {-2.5, 0, HalfUp, -3},
		{2.9, 0, Down, 2}, {-2.9, 0, Down, -2},
		{2.1, 0, Up, 3}, {-2.1, 0, Up, -3},
		{2.675, 2, HalfEven, 2.68}, {2.665, 2, HalfEven, 2.66}, {2.675, 2, HalfUp, 2.68},
		{1.005, 2, HalfUp, 1.01}, {1.004999, 2, HalfUp, 1},
		{91679.99499, 0, HalfEven, 91680}, {123.456, 1, Down, 123.4},
		{7, 2, Up, 7}, {0, 3, HalfEven, 0}, {1e20, 0, HalfEven, 1e20},
	} {
		if got := Round(c.x, c.d, c.m); got != c.want {
			t.Errorf("Round(%v, %d, %s) = %v, want %v", c.x, c.d, c.m, got, c.want)
		}
	}
	if _, err := ParseMode("bankers"); err == nil {
		t.Error("ParseMode accepted an unknown mode")
	}
}

// FuzzParse: whatever the text, Parse returns a formula or an *Error,
// never panics, and a formula it returns is within the bounds and
// evaluates without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a*b/(1-pow(1+r,-n))", "min(a,b,c)", "-(-(-1))", "a ^ b", "x.y.z", "f()", "1e309", "((((a))))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Col < 1 {
				t.Fatalf("Parse(%q): %v is not a positioned error", src, err)
			}
			return
		}
		if len(e.Names()) > MaxNodes {
			t.Fatalf("%d names", len(e.Names()))
		}
		if d := e.root.depth(); d > MaxDepth {
			t.Fatalf("depth %d", d)
		}
		e.Eval(func(string) (float64, bool) { return 1.5, true })
	})
}

func (n *node) depth() int {
	d := 0
	for _, c := range n.args {
		d = max(d, c.depth())
	}
	return d + 1
}
