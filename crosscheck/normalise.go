package crosscheck

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// NewClient returns a DynamoDB client for a local endpoint with fake static
// credentials. Retries are off so that a transient error on one side shows
// up as a difference instead of being hidden. Each request has a
// connection of its own: with retries off, a kept-alive connection the
// peer's server closes between two requests (moto's closes them) would
// fail a step for the transport's sake, not the implementation's.
func NewClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("fake", "fake", ""),
		RetryMaxAttempts: 1,
		HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.DisableKeepAlives = true
		}),
	})
}

// dropped names output fields that differ between correct implementations:
// request metadata, and capacity, which dynalite does not compute as
// DynamoDB does.
var dropped = map[string]bool{
	"ResultMetadata":   true,
	"ConsumedCapacity": true,
}

var (
	attrType   = reflect.TypeFor[types.AttributeValue]()
	timeType   = reflect.TypeFor[time.Time]()
	stringType = reflect.TypeFor[string]()
	arnRe      = regexp.MustCompile(`(arn:aws:dynamodb:[^:]*:)[0-9]{12}:`)
)

// Normalise turns an SDK output (or any part of it) into plain maps, lists
// and scalars: attribute values keep their wire tags ({"S": "x"}), set
// members are sorted, timestamps and dropped fields vanish, and empty lists
// and maps are treated as absent (an SDK caller cannot tell them apart).
func Normalise(v any) any {
	out, ok := walk(reflect.ValueOf(v))
	if !ok {
		return map[string]any{}
	}
	return out
}

func walk(v reflect.Value) (any, bool) {
	if !v.IsValid() {
		return nil, false
	}
	if v.Type() == attrType {
		if v.IsNil() {
			return nil, false
		}
		return Attr(v.Interface().(types.AttributeValue)), true
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil, false
		}
		return walk(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			return nil, false
		}
		m := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || dropped[f.Name] {
				continue
			}
			if x, ok := walk(v.Field(i)); ok {
				m[f.Name] = x
			}
		}
		return m, len(m) > 0
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), true
		}
		if v.Len() == 0 {
			return nil, false
		}
		l := make([]any, 0, v.Len())
		for i := range v.Len() {
			x, _ := walk(v.Index(i))
			l = append(l, x)
		}
		return l, true
	case reflect.Map:
		if v.Len() == 0 {
			return nil, false
		}
		m := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			x, _ := walk(it.Value())
			m[fmt.Sprint(it.Key().Interface())] = x
		}
		return m, true
	case reflect.String:
		// Enumerations are string types whose zero value means "not sent".
		if v.String() == "" && v.Type() != stringType {
			return nil, false
		}
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint(), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return fmt.Sprintf("<%s>", v.Type()), true
}

// Attr renders one attribute value with its wire tag. Sets are sorted
// because DynamoDB gives set members no order.
func Attr(v types.AttributeValue) any {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": x.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": x.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(x.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": x.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": x.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": sorted(x.Value)}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": sorted(x.Value)}
	case *types.AttributeValueMemberBS:
		s := make([]string, len(x.Value))
		for i, b := range x.Value {
			s[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": sorted(s)}
	case *types.AttributeValueMemberL:
		l := make([]any, len(x.Value))
		for i, e := range x.Value {
			l[i] = Attr(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(x.Value))
		for k, e := range x.Value {
			m[k] = Attr(e)
		}
		return map[string]any{"M": m}
	case nil:
		return nil
	}
	return map[string]any{"unknown": fmt.Sprintf("%T", v)}
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// SortList orders a list by the JSON form of its elements, for results whose
// order DynamoDB leaves unspecified (Scan, BatchGetItem).
func SortList(l []any) {
	keys := make([]string, len(l))
	for i, e := range l {
		keys[i] = Canonical(e)
	}
	sort.Sort(byKey{l, keys})
}

type byKey struct {
	l    []any
	keys []string
}

func (b byKey) Len() int           { return len(b.l) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.l[i], b.l[j] = b.l[j], b.l[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// Canonical is the indented JSON form of a normalised value (map keys
// sorted), with account ids in ARNs masked; it is what two sides compare.
func Canonical(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	return arnRe.ReplaceAllString(strings.TrimSuffix(b.String(), "\n"), "${1}ACCOUNT:")
}
