// Package archive moves the items a table's time to live deletes into
// another table, reading the table's DynamoDB stream: the history
// pattern of a hot table that expires what it no longer needs
// (housekeeping by TTL) while the history keeps it for the rare question
// that still asks.
//
// Only deletions made by DynamoDB itself are archived: a stream record
// whose eventName is REMOVE and whose userIdentity is the service's
// ({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}), its
// OldImage written whole to the history table. A user's delete is a
// decision about the item, not housekeeping, and is left alone; inserts
// and changes are read and passed over. The stream must therefore carry
// old images (view OLD_IMAGE or NEW_AND_OLD_IMAGES).
//
// Every stream of the table is read, oldest first (a stream disabled and
// re-enabled leaves the old one readable for 24 hours), and in each
// stream every shard after its parent, so that a key's deletions are
// archived in the order they happened. A run either drains what the
// streams hold and stops, or follows them until its context ends. With a
// checkpoint file the position reached in every shard is recorded after
// each page is archived, so that a run stopped at any point resumes
// where the last one stopped; an item archived twice is written twice
// with the same content, which is harmless.
//
// The archiver speaks the AWS APIs through narrow interfaces that the
// SDK's clients satisfy: it works the same on the embedded engine,
// cardapio serve, or AWS.
package archive
