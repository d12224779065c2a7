package attr

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FromSDK converts an aws-sdk-go-v2 attribute value. It fails on nil and
// on union members this package does not know, naming the path to them.
func FromSDK(av types.AttributeValue) (Value, error) {
	return fromSDK(av, 1)
}

// FromSDKItem converts an aws-sdk-go-v2 item.
func FromSDKItem(m map[string]types.AttributeValue) (Item, error) {
	return fromSDKMap(m, 1)
}

func fromSDKMap(m map[string]types.AttributeValue, depth int) (Item, error) {
	if len(m) == 0 {
		return nil, nil
	}
	it := make(Item, 0, len(m))
	for name, av := range m {
		v, err := fromSDK(av, depth)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		it = append(it, Field{Name: name, Value: v})
	}
	slices.SortFunc(it, byName)
	return it, nil
}

func fromSDK(av types.AttributeValue, depth int) (Value, error) {
	switch av.(type) {
	case *types.AttributeValueMemberM, *types.AttributeValueMemberL:
		if depth > MaxDepth {
			return Value{}, fmt.Errorf("nesting exceeds %d levels", MaxDepth)
		}
	}
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return Str(x.Value), nil
	case *types.AttributeValueMemberN:
		return Num(x.Value), nil
	case *types.AttributeValueMemberB:
		return Bin(x.Value), nil
	case *types.AttributeValueMemberBOOL:
		return Bool(x.Value), nil
	case *types.AttributeValueMemberNULL:
		return Null(), nil
	case *types.AttributeValueMemberM:
		it, err := fromSDKMap(x.Value, depth+1)
		return MapOf(it), err
	case *types.AttributeValueMemberL:
		if len(x.Value) == 0 {
			return ListOf(), nil
		}
		list := make([]Value, len(x.Value))
		for i, e := range x.Value {
			v, err := fromSDK(e, depth+1)
			if err != nil {
				return Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			list[i] = v
		}
		return ListOf(list...), nil
	case *types.AttributeValueMemberSS:
		return StrSet(slices.Clone(x.Value)...), nil
	case *types.AttributeValueMemberNS:
		return NumSet(slices.Clone(x.Value)...), nil
	case *types.AttributeValueMemberBS:
		set := make([]string, len(x.Value))
		for i, b := range x.Value {
			set[i] = string(b)
		}
		return BinSet(set...), nil
	case nil:
		return Value{}, fmt.Errorf("nil attribute value")
	case *types.UnknownUnionMember:
		return Value{}, fmt.Errorf("unknown attribute value type %q", x.Tag)
	}
	return Value{}, fmt.Errorf("unsupported attribute value %T", av)
}

// ToSDK converts v to an aws-sdk-go-v2 attribute value. The zero Value
// has no SDK form and converts to nil.
func ToSDK(v Value) types.AttributeValue {
	switch v.Type {
	case S:
		return &types.AttributeValueMemberS{Value: v.Str}
	case N:
		return &types.AttributeValueMemberN{Value: v.Str}
	case B:
		return &types.AttributeValueMemberB{Value: []byte(v.Str)}
	case BOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Bool}
	case NULL:
		return &types.AttributeValueMemberNULL{Value: true}
	case M:
		return &types.AttributeValueMemberM{Value: ToSDKItem(v.Map)}
	case L:
		list := make([]types.AttributeValue, len(v.List))
		for i, e := range v.List {
			list[i] = ToSDK(e)
		}
		return &types.AttributeValueMemberL{Value: list}
	case SS:
		return &types.AttributeValueMemberSS{Value: slices.Clone(v.Set)}
	case NS:
		return &types.AttributeValueMemberNS{Value: slices.Clone(v.Set)}
	case BS:
		set := make([][]byte, len(v.Set))
		for i, m := range v.Set {
			set[i] = []byte(m)
		}
		return &types.AttributeValueMemberBS{Value: set}
	}
	return nil
}

// ToSDKItem converts an item to an aws-sdk-go-v2 item; never nil, since
// the SDK sends an empty map for an empty item.
func ToSDKItem(it Item) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(it))
	for _, f := range it {
		m[f.Name] = ToSDK(f.Value)
	}
	return m
}
