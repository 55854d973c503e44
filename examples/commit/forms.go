package main

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// CommitArgs are the arguments of the commit tool: a generated form, so the
// tool can ask for them when the caller leaves them out.
//
//elicit:form
type CommitArgs struct {
	// The commit message.
	Message string `json:"message" jsonschema:"title=Message,minLength=1"`
}

// CommitForm asks what to commit where: its options are the repository's
// changed files and branches, known only when the tool runs.
//
//elicit:form
type CommitForm struct {
	// The changed files to commit.
	Files []string `json:"files" elicit:"choices" jsonschema:"title=Files" validate:"min=1"`
	// The branch to commit on.
	Branch string `json:"branch" elicit:"choices" jsonschema:"title=Branch"`
}
