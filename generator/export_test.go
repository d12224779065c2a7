package generator

import "github.com/cardapio/cardapio/attr"

// AVLiteral returns a Go expression of type types.AttributeValue for v
// that needs no helper of a generated package.
func AVLiteral(v attr.Value) string {
	return avLiteral(v, func(s string) string { return "&types.AttributeValueMemberS{Value: " + quote(s) + "}" })
}
