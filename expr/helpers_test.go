package expr

import (
	"errors"
	"testing"

	"github.com/cardapio/cardapio/attr"
	"github.com/stretchr/testify/require"
)

// item builds an item from name, value pairs.
func item(kv ...any) attr.Item {
	var fs []attr.Field
	for i := 0; i < len(kv); i += 2 {
		fs = append(fs, attr.Field{Name: kv[i].(string), Value: kv[i+1].(attr.Value)})
	}
	return attr.Sorted(fs)
}

func num(s string) attr.Value { return attr.Num(s) }
func str(s string) attr.Value { return attr.Str(s) }

// vals is the ExpressionAttributeValues most tests share.
var testValues = map[string]attr.Value{
	":s":     str("abc"),
	":s2":    str("abd"),
	":pre":   str("ab"),
	":n":     num("5"),
	":n2":    num("10"),
	":n5":    num("5.0"),
	":b":     attr.Bin([]byte{1, 2}),
	":bpre":  attr.Bin([]byte{1}),
	":t":     attr.Bool(true),
	":null":  attr.Null(),
	":l":     attr.ListOf(num("1"), str("x")),
	":m":     attr.MapOf(item("k", str("v"))),
	":ss":    attr.StrSet("a", "b"),
	":ns":    attr.NumSet("1", "2"),
	":typeS": str("S"),
	":typeN": str("N"),
	":typeL": str("L"),
	":bad":   str("XX"),
	":one":   num("1"),
	":two":   num("2"),
	":x":     str("x"),
}

// requireExprError checks that err is an *Error with exactly msg.
func requireExprError(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err)
	var e *Error
	require.True(t, errors.As(err, &e), "error %T is not *expr.Error", err)
	require.Equal(t, msg, e.Msg)
}
