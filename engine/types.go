package engine

import (
	"encoding/json"

	"github.com/cardapio/cardapio/attr"
)

// The request and response types mirror DynamoDB's API shapes member for
// member, with the wire names as Go field names, so that the HTTP server
// decodes requests straight into them and in-process callers use the same
// vocabulary as the SDKs. Absent optional members are zero values.

// KeySchemaElement names one key attribute; KeyType is HASH or RANGE.
type KeySchemaElement struct {
	AttributeName string
	KeyType       string
}

// AttributeDefinition declares the type (S, N or B) of a key attribute.
type AttributeDefinition struct {
	AttributeName string
	AttributeType string
}

// Projection says which attributes an index copies.
type Projection struct {
	ProjectionType   string   `json:",omitempty"`
	NonKeyAttributes []string `json:",omitempty"`
}

// ProvisionedThroughput is a table's or index's provisioned capacity.
type ProvisionedThroughput struct {
	ReadCapacityUnits  *int64 `json:",omitempty"`
	WriteCapacityUnits *int64 `json:",omitempty"`
}

// OnDemandThroughput caps an on-demand table or index (-1: no cap).
type OnDemandThroughput struct {
	MaxReadRequestUnits  *int64 `json:",omitempty"`
	MaxWriteRequestUnits *int64 `json:",omitempty"`
}

// WarmThroughput is the throughput a table or index can take at once.
type WarmThroughput struct {
	ReadUnitsPerSecond  *int64 `json:",omitempty"`
	WriteUnitsPerSecond *int64 `json:",omitempty"`
}

// GlobalSecondaryIndex defines a GSI at table creation or in UpdateTable.
type GlobalSecondaryIndex struct {
	IndexName             string
	KeySchema             []KeySchemaElement
	Projection            *Projection
	ProvisionedThroughput *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughput    *OnDemandThroughput    `json:",omitempty"`
	WarmThroughput        *WarmThroughput        `json:",omitempty"`
}

// LocalSecondaryIndex defines an LSI at table creation.
type LocalSecondaryIndex struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection *Projection
}

// Tag is a resource tag; tags are accepted and kept but have no effect.
type Tag struct {
	Key   string
	Value string
}

// CreateTableInput is CreateTable's request.
type CreateTableInput struct {
	TableName                 string
	AttributeDefinitions      []AttributeDefinition
	KeySchema                 []KeySchemaElement
	LocalSecondaryIndexes     []LocalSecondaryIndex
	GlobalSecondaryIndexes    []GlobalSecondaryIndex
	BillingMode               string
	ProvisionedThroughput     *ProvisionedThroughput
	OnDemandThroughput        *OnDemandThroughput
	WarmThroughput            *WarmThroughput
	StreamSpecification       *StreamSpecification
	SSESpecification          json.RawMessage
	Tags                      []Tag
	TableClass                string
	DeletionProtectionEnabled *bool
	ResourcePolicy            string
}

// CreateTableOutput is CreateTable's response.
type CreateTableOutput struct {
	TableDescription *TableDescription
}

// DeleteTableInput is DeleteTable's request.
type DeleteTableInput struct{ TableName string }

// DeleteTableOutput is DeleteTable's response: the table as it was.
type DeleteTableOutput struct{ TableDescription *TableDescription }

// DescribeTableInput is DescribeTable's request.
type DescribeTableInput struct{ TableName string }

// DescribeTableOutput is DescribeTable's response.
type DescribeTableOutput struct{ Table *TableDescription }

// ListTablesInput is ListTables' request.
type ListTablesInput struct {
	ExclusiveStartTableName string
	Limit                   *int
}

// ListTablesOutput is ListTables' response.
type ListTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string `json:",omitempty"`
}

// GlobalSecondaryIndexUpdate is one change of UpdateTable: exactly one of
// Create, Update or Delete.
type GlobalSecondaryIndexUpdate struct {
	Create *GlobalSecondaryIndex `json:",omitempty"`
	Update *struct {
		IndexName             string
		ProvisionedThroughput *ProvisionedThroughput
		OnDemandThroughput    *OnDemandThroughput
		WarmThroughput        *WarmThroughput
	} `json:",omitempty"`
	Delete *struct{ IndexName string } `json:",omitempty"`
}

// UpdateTableInput is UpdateTable's request.
type UpdateTableInput struct {
	TableName                   string
	AttributeDefinitions        []AttributeDefinition
	BillingMode                 string
	ProvisionedThroughput       *ProvisionedThroughput
	OnDemandThroughput          *OnDemandThroughput
	WarmThroughput              *WarmThroughput
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate
	StreamSpecification         *StreamSpecification
	SSESpecification            json.RawMessage
	TableClass                  string
	DeletionProtectionEnabled   *bool
}

// UpdateTableOutput is UpdateTable's response.
type UpdateTableOutput struct{ TableDescription *TableDescription }

// ProvisionedThroughputDescription describes provisioned capacity.
type ProvisionedThroughputDescription struct {
	NumberOfDecreasesToday int64
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
	LastIncreaseDateTime   float64 `json:",omitempty"`
	LastDecreaseDateTime   float64 `json:",omitempty"`
}

// BillingModeSummary says how a table is billed.
type BillingModeSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime float64 `json:",omitempty"`
}

// WarmThroughputDescription reports warm throughput and its status.
type WarmThroughputDescription struct {
	ReadUnitsPerSecond  int64
	WriteUnitsPerSecond int64
	Status              string
}

// GlobalSecondaryIndexDescription describes one GSI.
type GlobalSecondaryIndexDescription struct {
	IndexName             string
	KeySchema             []KeySchemaElement
	Projection            Projection
	IndexStatus           string
	Backfilling           *bool `json:",omitempty"`
	ProvisionedThroughput *ProvisionedThroughputDescription
	OnDemandThroughput    *OnDemandThroughput `json:",omitempty"`
	WarmThroughput        *WarmThroughputDescription
	IndexSizeBytes        int64
	ItemCount             int64
	IndexArn              string
}

// LocalSecondaryIndexDescription describes one LSI.
type LocalSecondaryIndexDescription struct {
	IndexName      string
	KeySchema      []KeySchemaElement
	Projection     Projection
	IndexSizeBytes int64
	ItemCount      int64
	IndexArn       string
}

// TableClassSummary reports the table class.
type TableClassSummary struct{ TableClass string }

// TableDescription is DescribeTable's view of a table.
type TableDescription struct {
	TableName                 string
	TableArn                  string
	TableId                   string
	TableStatus               string
	CreationDateTime          float64
	AttributeDefinitions      []AttributeDefinition
	KeySchema                 []KeySchemaElement
	ProvisionedThroughput     *ProvisionedThroughputDescription
	BillingModeSummary        *BillingModeSummary `json:",omitempty"`
	OnDemandThroughput        *OnDemandThroughput `json:",omitempty"`
	WarmThroughput            *WarmThroughputDescription
	TableSizeBytes            int64
	ItemCount                 int64
	GlobalSecondaryIndexes    []GlobalSecondaryIndexDescription `json:",omitempty"`
	LocalSecondaryIndexes     []LocalSecondaryIndexDescription  `json:",omitempty"`
	TableClassSummary         *TableClassSummary                `json:",omitempty"`
	DeletionProtectionEnabled bool
	StreamSpecification       *StreamSpecification `json:",omitempty"`
	LatestStreamArn           string               `json:",omitempty"`
	LatestStreamLabel         string               `json:",omitempty"`
}

// Expressions carries the expression members shared by most requests.
type Expressions struct {
	ExpressionAttributeNames  map[string]string     `json:",omitempty"`
	ExpressionAttributeValues map[string]attr.Value `json:",omitempty"`
}

// PutItemInput is PutItem's request.
type PutItemInput struct {
	TableName                           string
	Item                                attr.Item
	Expected                            map[string]ExpectedAttributeValue `json:",omitempty"`
	ConditionalOperator                 string                            `json:",omitempty"`
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
}

// ItemCollectionMetrics estimates the size of the item collection (the
// items sharing a partition key, with their LSI entries) of a table with
// local secondary indexes.
type ItemCollectionMetrics struct {
	ItemCollectionKey   attr.Item
	SizeEstimateRangeGB []float64
}

// PutItemOutput is PutItem's response.
type PutItemOutput struct {
	Attributes            attr.Item              `json:",omitempty"`
	ConsumedCapacity      *Consumed              `json:",omitempty"`
	ItemCollectionMetrics *ItemCollectionMetrics `json:",omitempty"`
}

// GetItemInput is GetItem's request.
type GetItemInput struct {
	TableName                string
	Key                      attr.Item
	ConsistentRead           bool
	ProjectionExpression     string
	AttributesToGet          []string
	ExpressionAttributeNames map[string]string
	ReturnConsumedCapacity   string
}

// GetItemOutput is GetItem's response; Item is nil when there is none.
type GetItemOutput struct {
	Item             attr.Item `json:",omitempty"`
	ConsumedCapacity *Consumed `json:",omitempty"`

	// wire, for the wire only (getWire), is the response's start, its
	// item already encoded: `{"Item":{...}`, Item left nil.
	wire []byte
}

// DeleteItemInput is DeleteItem's request.
type DeleteItemInput struct {
	TableName                           string
	Key                                 attr.Item
	Expected                            map[string]ExpectedAttributeValue `json:",omitempty"`
	ConditionalOperator                 string                            `json:",omitempty"`
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
}

// DeleteItemOutput is DeleteItem's response.
type DeleteItemOutput struct {
	Attributes            attr.Item              `json:",omitempty"`
	ConsumedCapacity      *Consumed              `json:",omitempty"`
	ItemCollectionMetrics *ItemCollectionMetrics `json:",omitempty"`
}

// UpdateItemInput is UpdateItem's request.
type UpdateItemInput struct {
	TableName                           string
	Key                                 attr.Item
	Expected                            map[string]ExpectedAttributeValue `json:",omitempty"`
	ConditionalOperator                 string                            `json:",omitempty"`
	AttributeUpdates                    map[string]AttributeValueUpdate   `json:",omitempty"`
	UpdateExpression                    string
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValues                        string
	ReturnConsumedCapacity              string
	ReturnItemCollectionMetrics         string
	ReturnValuesOnConditionCheckFailure string
}

// UpdateItemOutput is UpdateItem's response.
type UpdateItemOutput struct {
	Attributes            attr.Item              `json:",omitempty"`
	ConsumedCapacity      *Consumed              `json:",omitempty"`
	ItemCollectionMetrics *ItemCollectionMetrics `json:",omitempty"`
}

// QueryInput is Query's request.
type QueryInput struct {
	TableName                 string
	KeyConditions             map[string]Condition `json:",omitempty"`
	QueryFilter               map[string]Condition `json:",omitempty"`
	ConditionalOperator       string               `json:",omitempty"`
	IndexName                 string
	KeyConditionExpression    string
	FilterExpression          string
	ProjectionExpression      string
	AttributesToGet           []string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]attr.Value
	Select                    string
	Limit                     *int
	ExclusiveStartKey         attr.Item
	ScanIndexForward          *bool
	ConsistentRead            bool
	ReturnConsumedCapacity    string
}

// QueryOutput is Query's and Scan's response.
type QueryOutput struct {
	Items            []attr.Item
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item `json:",omitempty"`
	ConsumedCapacity *Consumed `json:",omitempty"`

	// wire, for the server, holds the items already encoded: `{"Items":[`
	// and the items, in place of Items (see readRequest.run).
	wire []byte
}

// ScanInput is Scan's request.
type ScanInput struct {
	TableName                 string
	ScanFilter                map[string]Condition `json:",omitempty"`
	ConditionalOperator       string               `json:",omitempty"`
	IndexName                 string
	FilterExpression          string
	ProjectionExpression      string
	AttributesToGet           []string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]attr.Value
	Select                    string
	Limit                     *int
	ExclusiveStartKey         attr.Item
	Segment                   *int
	TotalSegments             *int
	ConsistentRead            bool
	ReturnConsumedCapacity    string
}

// ScanOutput is Scan's response.
type ScanOutput = QueryOutput

// WriteRequest is one BatchWriteItem request: a Put or a Delete.
type WriteRequest struct {
	PutRequest    *struct{ Item attr.Item } `json:",omitempty"`
	DeleteRequest *struct{ Key attr.Item }  `json:",omitempty"`
}

// BatchWriteItemInput is BatchWriteItem's request.
type BatchWriteItemInput struct {
	RequestItems                map[string][]WriteRequest
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

// BatchWriteItemOutput is BatchWriteItem's response.
type BatchWriteItemOutput struct {
	UnprocessedItems map[string][]WriteRequest
	ConsumedCapacity []*Consumed `json:",omitempty"`
}

// KeysAndAttributes is one table's part of a BatchGetItem request.
type KeysAndAttributes struct {
	Keys                     []attr.Item
	ProjectionExpression     string                `json:",omitempty"`
	AttributesToGet          []string              `json:",omitempty"`
	ExpressionAttributeNames map[string]string     `json:",omitempty"`
	ConsistentRead           bool                  `json:",omitempty"`
	ExpressionAttributeVals  map[string]attr.Value `json:"-"`
}

// BatchGetItemInput is BatchGetItem's request.
type BatchGetItemInput struct {
	RequestItems           map[string]*KeysAndAttributes
	ReturnConsumedCapacity string
}

// BatchGetItemOutput is BatchGetItem's response.
type BatchGetItemOutput struct {
	Responses        map[string][]attr.Item
	UnprocessedKeys  map[string]*KeysAndAttributes
	ConsumedCapacity []*Consumed `json:",omitempty"`
}

// ConditionCheck is a transaction action that only checks a condition.
type ConditionCheck struct {
	TableName                           string
	Key                                 attr.Item
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValuesOnConditionCheckFailure string
}

// TransactPut is a transaction's Put action.
type TransactPut struct {
	TableName                           string
	Item                                attr.Item
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValuesOnConditionCheckFailure string
}

// TransactDelete is a transaction's Delete action.
type TransactDelete struct {
	TableName                           string
	Key                                 attr.Item
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValuesOnConditionCheckFailure string
}

// TransactUpdate is a transaction's Update action.
type TransactUpdate struct {
	TableName                           string
	Key                                 attr.Item
	UpdateExpression                    string
	ConditionExpression                 string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]attr.Value
	ReturnValuesOnConditionCheckFailure string
}

// TransactWriteItem is one action: exactly one member is set.
type TransactWriteItem struct {
	ConditionCheck *ConditionCheck `json:",omitempty"`
	Put            *TransactPut    `json:",omitempty"`
	Delete         *TransactDelete `json:",omitempty"`
	Update         *TransactUpdate `json:",omitempty"`
}

// TransactWriteItemsInput is TransactWriteItems' request.
type TransactWriteItemsInput struct {
	TransactItems               []TransactWriteItem
	ClientRequestToken          string
	ReturnConsumedCapacity      string
	ReturnItemCollectionMetrics string
}

// TransactWriteItemsOutput is TransactWriteItems' response.
type TransactWriteItemsOutput struct {
	ConsumedCapacity []*Consumed `json:",omitempty"`
}

// TransactGetItem is one Get of TransactGetItems.
type TransactGetItem struct {
	Get *struct {
		TableName                string
		Key                      attr.Item
		ProjectionExpression     string
		ExpressionAttributeNames map[string]string
	}
}

// TransactGetItemsInput is TransactGetItems' request.
type TransactGetItemsInput struct {
	TransactItems          []TransactGetItem
	ReturnConsumedCapacity string
}

// ItemResponse is one TransactGetItems result; Item is nil when absent.
type ItemResponse struct {
	Item attr.Item `json:",omitempty"`
}

// TransactGetItemsOutput is TransactGetItems' response.
type TransactGetItemsOutput struct {
	Responses        []ItemResponse
	ConsumedCapacity []*Consumed `json:",omitempty"`
}

// TimeToLiveSpecification enables or disables TTL on an attribute.
type TimeToLiveSpecification struct {
	AttributeName string
	Enabled       *bool
}

// UpdateTimeToLiveInput is UpdateTimeToLive's request.
type UpdateTimeToLiveInput struct {
	TableName               string
	TimeToLiveSpecification *TimeToLiveSpecification
}

// UpdateTimeToLiveOutput is UpdateTimeToLive's response.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *TimeToLiveSpecification
}

// DescribeTimeToLiveInput is DescribeTimeToLive's request.
type DescribeTimeToLiveInput struct{ TableName string }

// TimeToLiveDescription reports the TTL status of a table.
type TimeToLiveDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:",omitempty"`
}

// DescribeTimeToLiveOutput is DescribeTimeToLive's response.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription *TimeToLiveDescription
}
