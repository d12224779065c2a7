package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

func TestBadParams(t *testing.T) {
	m := load(t, "../model.yaml")
	x := executor.New(m, nil, executor.Options{})
	ctx := context.Background()
	cases := []struct {
		name   string
		params map[string]attr.Value
		want   []string
	}{
		{"wrong type", map[string]attr.Value{"amountCents": attr.Str("48790")}, []string{"parameter amountCents of ApplySettlement", "expected an N value, got an S value"}},
		{"out of the enum", map[string]attr.Value{"newBucket": attr.Str("D031_06")}, []string{"parameter newBucket", "not a value of bucket", `did you mean "D031_060"?`}},
		{"not a civil date", map[string]attr.Value{"newOldest": attr.Str("2026-02-30")}, []string{"parameter newOldest", "not a valid date"}},
		{"not a number", map[string]attr.Value{"newBalance": attr.Num("12a")}, []string{"parameter newBalance", "not a number"}},
		{"separator in a key", map[string]attr.Value{"chargeRef": attr.Str("E2E#7Q9")}, []string{"parameter chargeRef", `key separator "#"`}},
		{"out of the pattern", map[string]attr.Value{"tenantId": attr.Str("t0#42")}, []string{"parameter tenantId", `does not match the pattern of tenantId`}},
		{"unknown", map[string]attr.Value{"tenant": attr.Str("t042")}, []string{`no parameter "tenant"`, `did you mean "tenantId"?`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := x.Run(ctx, executor.Input{Operation: "ApplySettlement", Variant: "cures", Params: c.params})
			var pe *executor.ParamError
			require.True(t, errors.As(err, &pe), "%v", err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := x.Run(ctx, executor.Input{Operation: "ApplySettlment", Variant: "cures"})
	assert.ErrorContains(t, err, `no operation "ApplySettlment" (did you mean "ApplySettlement"?)`)
	_, err = x.Run(ctx, executor.Input{Operation: "ApplySettlement", Variant: "cure"})
	assert.ErrorContains(t, err, `no variant "cure"`)
}

// FuzzParams: any value given for any parameter of any operation is
// either refused with an error naming the parameter, or run; nothing
// panics.
func FuzzParams(f *testing.F) {
	m := load(f, "../model.yaml")
	ctx := context.Background()
	tg, err := endpoint.Open(ctx, endpoint.Options{})
	require.NoError(f, err)
	ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "f-"})
	require.NoError(f, err)
	x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Loader: tg})
	vs := variants(m)
	f.Add(uint8(0), uint8(0), uint8(1), "48790")
	f.Add(uint8(3), uint8(2), uint8(2), "t0#42")
	f.Add(uint8(5), uint8(1), uint8(7), "")
	f.Fuzz(func(t *testing.T, opi, pi, kind uint8, text string) {
		ov := vs[int(opi)%len(vs)]
		op := m.Operation(ov[0])
		if len(op.Params) == 0 {
			return
		}
		p := op.Params[int(pi)%len(op.Params)]
		var v attr.Value
		switch kind % 8 {
		case 0:
			v = attr.Str(text)
		case 1:
			v = attr.Num(text)
		case 2:
			v = attr.Bin([]byte(text))
		case 3:
			v = attr.Bool(len(text)%2 == 0)
		case 4:
			v = attr.Null()
		case 5:
			v = attr.ListOf(attr.Str(text))
		case 6:
			v = attr.MapOf(attr.Item{{Name: text, Value: attr.Str(text)}})
		case 7:
			v = attr.Value{}
		}
		in := executor.Input{Operation: ov[0], Variant: ov[1], Params: map[string]attr.Value{p.Name: v}}
		_, err := x.Run(ctx, in)
		if err != nil {
			var pe *executor.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("%s/%s %s=%v: not a parameter error: %v", ov[0], ov[1], p.Name, v, err)
			}
			if !strings.Contains(err.Error(), p.Name) {
				t.Fatalf("the error does not name %s: %v", p.Name, err)
			}
		}
	})
}
