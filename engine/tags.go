package engine

import (
	"context"
	"sort"
	"strings"
)

// Tags are kept on tables and listed back; they change nothing else.

// TagResourceInput is TagResource's request.
type TagResourceInput struct {
	ResourceArn string
	Tags        []Tag
}

// TagResourceOutput is TagResource's (empty) response.
type TagResourceOutput struct{}

// UntagResourceInput is UntagResource's request.
type UntagResourceInput struct {
	ResourceArn string
	TagKeys     []string
}

// UntagResourceOutput is UntagResource's (empty) response.
type UntagResourceOutput struct{}

// ListTagsOfResourceInput is ListTagsOfResource's request.
type ListTagsOfResourceInput struct {
	ResourceArn string
	NextToken   string
}

// ListTagsOfResourceOutput lists a table's tags, sorted by key.
type ListTagsOfResourceOutput struct {
	Tags      []Tag
	NextToken string `json:",omitempty"`
}

// ErrAccessDenied is what DynamoDB answers for tags of a table that does
// not exist (the ARN names nothing the caller may see).
const ErrAccessDenied = "AccessDeniedException"

// resource finds the table an ARN names.
func (e *Engine) resource(arn string) (*table, error) {
	i := strings.Index(arn, ":table/")
	if !strings.HasPrefix(arn, "arn:") || i < 0 || strings.Count(arn[:i], ":") != 4 {
		return nil, validationf("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
	}
	name := arn[i+len(":table/"):]
	if j := strings.IndexByte(name, '/'); j >= 0 {
		name = name[:j]
	}
	e.mu.RLock()
	t := e.tables[name]
	e.mu.RUnlock()
	if t == nil {
		return nil, &Error{Type: ErrAccessDenied, Message: "User is not authorized to perform this action on resource: " + arn}
	}
	return t, nil
}

// TagResource adds or replaces tags of a table.
func (e *Engine) TagResource(ctx context.Context, in *TagResourceInput) (*TagResourceOutput, error) {
	out, err := e.tagResource(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) tagResource(_ context.Context, in *TagResourceInput) (*TagResourceOutput, error) {
	t, err := e.resource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tag := range in.Tags {
		if tag.Key == "" {
			return nil, validationf("1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		replaced := false
		for i := range t.tags {
			if t.tags[i].Key == tag.Key {
				t.tags[i].Value, replaced = tag.Value, true
			}
		}
		if !replaced {
			t.tags = append(t.tags, tag)
		}
	}
	e.logDef(t)
	return &TagResourceOutput{}, nil
}

// UntagResource removes tags from a table.
func (e *Engine) UntagResource(ctx context.Context, in *UntagResourceInput) (*UntagResourceOutput, error) {
	out, err := e.untagResource(ctx, in)
	return out, e.afterWrite(err)
}

func (e *Engine) untagResource(_ context.Context, in *UntagResourceInput) (*UntagResourceOutput, error) {
	t, err := e.resource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.tags[:0:0]
	for _, tag := range t.tags {
		drop := false
		for _, k := range in.TagKeys {
			drop = drop || k == tag.Key
		}
		if !drop {
			kept = append(kept, tag)
		}
	}
	t.tags = kept
	e.logDef(t)
	return &UntagResourceOutput{}, nil
}

// ListTagsOfResource lists a table's tags.
func (e *Engine) ListTagsOfResource(_ context.Context, in *ListTagsOfResourceInput) (*ListTagsOfResourceOutput, error) {
	t, err := e.resource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	t.mu.RLock()
	tags := append([]Tag{}, t.tags...)
	t.mu.RUnlock()
	sort.Slice(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	return &ListTagsOfResourceOutput{Tags: tags}, nil
}
