package engine

import (
	"errors"
	"fmt"

	"github.com/cardapio/cardapio/attr"
)

// DynamoDB's exception names, as they appear in the wire "__type" after
// the '#' and as the SDKs name their typed errors.
const (
	ErrValidation             = "ValidationException"
	ErrSerialization          = "SerializationException"
	ErrResourceNotFound       = "ResourceNotFoundException"
	ErrResourceInUse          = "ResourceInUseException"
	ErrConditionalCheckFailed = "ConditionalCheckFailedException"
	ErrTransactionCanceled    = "TransactionCanceledException"
	ErrTransactionConflict    = "TransactionConflictException"
	ErrTransactionInProgress  = "TransactionInProgressException"
	ErrIdempotentMismatch     = "IdempotentParameterMismatchException"
	ErrItemCollectionTooLarge = "ItemCollectionSizeLimitExceededException"
	ErrProvisionedExceeded    = "ProvisionedThroughputExceededException"
	ErrThrottling             = "ThrottlingException"
	ErrUnknownOperation       = "UnknownOperationException"
	ErrInternal               = "InternalServerError"
	ErrLimitExceeded          = "LimitExceededException"
)

// Error is an error DynamoDB would return: Type is the exception name
// (one of the Err* constants) and Message its text, worded like
// DynamoDB's. The optional fields are the extra members some exceptions
// carry.
type Error struct {
	Type    string
	Message string
	// Item is the current item of a ConditionalCheckFailedException when
	// ReturnValuesOnConditionCheckFailure is ALL_OLD.
	Item attr.Item
	// CancellationReasons explains a TransactionCanceledException, one
	// reason per action in request order.
	CancellationReasons []CancellationReason
	// ThrottlingReasons explains a throttling exception.
	ThrottlingReasons []ThrottlingReason
}

// CancellationReason is why one action of a transaction was cancelled;
// Code is "None" for actions that were not at fault.
type CancellationReason struct {
	Code    string
	Message string    `json:",omitempty"`
	Item    attr.Item `json:",omitempty"`
}

// ThrottlingReason names the limit a throttled request hit and the ARN of
// the table or index that hit it.
type ThrottlingReason struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Status is the HTTP status DynamoDB answers this error with.
func (e *Error) Status() int {
	switch e.Type {
	case ErrInternal:
		return 500
	case ErrServiceUnavailable:
		return 503
	}
	return 400
}

// IsType reports whether err is an *Error of the given exception type.
func IsType(err error, typ string) bool {
	var e *Error
	return errors.As(err, &e) && e.Type == typ
}

func validationf(format string, args ...any) *Error {
	return &Error{Type: ErrValidation, Message: fmt.Sprintf(format, args...)}
}

// invalidParam words the many "One or more parameter values were invalid"
// messages.
func invalidParam(format string, args ...any) *Error {
	return &Error{Type: ErrValidation, Message: "One or more parameter values were invalid: " + fmt.Sprintf(format, args...)}
}

func notFound(msg string) *Error {
	return &Error{Type: ErrResourceNotFound, Message: msg}
}

func tableNotFound() *Error {
	return notFound("Requested resource not found")
}

// errInFlight refuses a write to an item that a transaction is
// committing.
var errInFlight = &Error{Type: ErrTransactionConflict, Message: "Transaction is ongoing for the item"}

func conditionFailed(item attr.Item) *Error {
	return &Error{Type: ErrConditionalCheckFailed, Message: "The conditional request failed", Item: item}
}
