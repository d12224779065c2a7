package engine

import "strings"

// streamsPrefix names the streams API in X-Amz-Target.
const streamsPrefix = "DynamoDBStreams_20120810."

// streamOps are the streams API's operations, by X-Amz-Target name.
var streamOps = map[string]op{
	"ListStreams":      handle((*Engine).ListStreams),
	"DescribeStream":   handle((*Engine).DescribeStream),
	"GetShardIterator": handle((*Engine).GetShardIterator),
	"GetRecords":       handle((*Engine).GetRecords),
}

// operation resolves an X-Amz-Target to an operation of the tables API
// or of the streams API, which the server answers on the same port.
func operation(target string) (name string, f op, ok bool) {
	if name, found := strings.CutPrefix(target, targetPrefix); found {
		f, ok = ops[name]
		return name, f, ok
	}
	if name, found := strings.CutPrefix(target, streamsPrefix); found {
		f, ok = streamOps[name]
		return name, f, ok
	}
	return "", op{}, false
}
