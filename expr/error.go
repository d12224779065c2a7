package expr

import (
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Error is a validation failure worded as DynamoDB words it. Engines
// answer it with a ValidationException carrying Msg unchanged.
type Error struct {
	Msg string
	// Subject is the reserved word or the placeholder the error is about,
	// when it is about one, so that a caller can suggest a fix; Msg names
	// it too.
	Subject string
}

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Kind names the request parameter an expression came from. It is the
// prefix of the expression's error messages.
type Kind uint8

// The expression parameters of the DynamoDB API.
const (
	ConditionKind Kind = iota
	FilterKind
	KeyConditionKind
	UpdateKind
	ProjectionKind
)

var kindNames = [...]string{"ConditionExpression", "FilterExpression", "KeyConditionExpression", "UpdateExpression", "ProjectionExpression"}

// String returns the parameter name, e.g. "ConditionExpression".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Expression"
}

func (k Kind) errorf(format string, args ...any) *Error {
	return &Error{Msg: "Invalid " + k.String() + ": " + fmt.Sprintf(format, args...)}
}

// Messages of errors found while applying an update to an item; DynamoDB
// words them without the "Invalid UpdateExpression" prefix.
const (
	msgInvalidPath  = "The document path provided in the update expression is invalid for update"
	msgOperandType  = "An operand in the update expression has an incorrect data type"
	msgMissingValue = "The provided expression refers to an attribute that does not exist in the item"
)

// typeWords are the type names of update operand errors ("operand type:
// STRING"). Sets have none: they are valid operands of ADD and DELETE.
func typeWord(t attr.Type) string {
	switch t.String() {
	case "S":
		return "STRING"
	case "N":
		return "NUMBER"
	case "B":
		return "BINARY"
	case "NULL":
		return "NULL"
	case "BOOL":
		return "BOOLEAN"
	case "L":
		return "LIST"
	case "M":
		return "MAP"
	}
	return strings.ToUpper(t.String())
}
