package tracing

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of wright's spans. The gen_ai.* keys are OpenTelemetry's
// GenAI semantic conventions, which trace backends (Langfuse, Jaeger's
// and collectors' GenAI views) read; the wright.* keys are wright's own.
const (
	GenAIOperation      = attribute.Key("gen_ai.operation.name") // invoke_agent, chat, execute_tool
	GenAIProvider       = attribute.Key("gen_ai.provider.name")
	GenAIAgentName      = attribute.Key("gen_ai.agent.name")
	GenAIRequestModel   = attribute.Key("gen_ai.request.model")
	GenAIResponseModel  = attribute.Key("gen_ai.response.model")
	GenAIOutputType     = attribute.Key("gen_ai.output.type") // json (an action), text (the judge, summaries)
	GenAIFinishReasons  = attribute.Key("gen_ai.response.finish_reasons")
	GenAIInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	GenAIOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	GenAICachedTokens   = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	GenAIToolName       = attribute.Key("gen_ai.tool.name")
	GenAIToolType       = attribute.Key("gen_ai.tool.type")
	GenAIConversationID = attribute.Key("gen_ai.conversation.id") // the run directory's name
	ServerAddress       = attribute.Key("server.address")

	TaskID      = attribute.Key("wright.task_id")
	Mode        = attribute.Key("wright.mode")
	Step        = attribute.Key("wright.step")
	ExitStatus  = attribute.Key("wright.exit_status")
	GateLabel   = attribute.Key("wright.gate.label")
	GatePass    = attribute.Key("wright.gate.pass")
	ModelCalls  = attribute.Key("wright.model_calls")
	Cost        = attribute.Key("wright.cost_usd")
	JudgeCost   = attribute.Key("wright.judge.cost_usd")
	Command     = attribute.Key("wright.command") // the action's code, redacted and cut
	Outcome     = attribute.Key("wright.outcome") // the observation's status ("rc 0", "success true")
	Done        = attribute.Key("wright.done")
	FormatError = attribute.Key("wright.format_error")
)

// Operations, the values of GenAIOperation.
const (
	OpAgent = "invoke_agent"
	OpChat  = "chat"
	OpTool  = "execute_tool"
)

// MaxCommand is how much of an action's code a span keeps: enough to see
// what ran, not a copy of the script.
const MaxCommand = 1000

// Cut shortens s to at most n bytes on a rune boundary.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Fail marks span failed with err's text.
func Fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// KeyValue is an attribute, named here so that packages making spans need
// not import the attribute package.
type KeyValue = attribute.KeyValue
