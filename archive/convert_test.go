package archive

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnknownMemberRefused: an old image holding a value of a type the
// SDK does not know is refused, not archived as a NULL in its place.
func TestUnknownMemberRefused(t *testing.T) {
	rec := st.Record{
		EventName:    st.OperationTypeRemove,
		UserIdentity: &st.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")},
		Dynamodb: &st.StreamRecord{
			Keys: map[string]st.AttributeValue{"PK": &st.AttributeValueMemberS{Value: "a"}},
			OldImage: map[string]st.AttributeValue{
				"PK":  &st.AttributeValueMemberS{Value: "a"},
				"odd": &st.UnknownUnionMember{Tag: "XX"},
			},
		},
	}
	r := &run{o: Options{From: "events", To: "events-history"}}
	err := r.archive(context.Background(), []st.Record{rec})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the old image of a TTL deletion of events")
	assert.Zero(t, r.res.Archived)
}
