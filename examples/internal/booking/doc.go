// Package booking is the part of the gosdk and mcpgo examples that does not
// depend on the MCP library: the forms book_table asks with, the texts it
// answers with, and the command-line boilerplate of serving MCP over HTTP.
// Each example keeps in its own main.go the code that shows its adapter:
// building the server, adding the tool, and eliciting the forms.
package booking
