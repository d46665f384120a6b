package harness

import (
	"context"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"wright/internal/tracing"
	"wright/model"
	"wright/run/agent"
	"wright/run/rundir"
)

// startRunSpan starts the root span of one run (GenAI's invoke_agent);
// steps, model calls and the judge's calls are its descendants.
func (h *Harness) startRunSpan(ctx context.Context, task Task, run *rundir.Run) (context.Context, trace.Span) {
	name := h.cfg.Model.Name
	if strings.HasPrefix(name, model.ReplayPrefix) {
		name = "replay"
	}
	return tracing.Tracer().Start(ctx, tracing.OpAgent+" wright", trace.WithAttributes(
		tracing.GenAIOperation.String(tracing.OpAgent),
		tracing.GenAIAgentName.String("wright"),
		tracing.GenAIRequestModel.String(name),
		tracing.GenAIConversationID.String(filepath.Base(run.Dir)),
		tracing.TaskID.String(task.ID),
		tracing.Mode.String(h.cfg.Agent.Mode),
	))
}

// endRunSpan records how the run ended and what it spent.
func endRunSpan(span trace.Span, res rundir.Result, err error) {
	span.SetAttributes(
		tracing.ExitStatus.String(string(res.ExitStatus)),
		tracing.ModelCalls.Int(res.ModelCalls),
		tracing.GenAIInputTokens.Int(res.Usage.PromptTokens),
		tracing.GenAIOutputTokens.Int(res.Usage.CompletionTokens),
		tracing.GenAICachedTokens.Int(res.Usage.CachedTokens),
		tracing.Cost.Float64(res.Usage.Cost),
	)
	if res.JudgeUsage != nil {
		span.SetAttributes(tracing.JudgeCost.Float64(res.JudgeUsage.Cost))
	}
	if res.GateLabel != nil {
		span.SetAttributes(tracing.GateLabel.Int(*res.GateLabel))
	}
	switch {
	case err != nil:
		tracing.Fail(span, err)
	case res.ExitStatus == agent.ModelError || res.ExitStatus == agent.EnvironmentError:
		span.SetStatus(codes.Error, res.Message)
	}
}
