package agent

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"wright/env"
	"wright/internal/tracing"
	"wright/model"
	"wright/run/gate"
)

// The loop's spans: one per step, holding the model call (a span of the
// model client's own) and the tool execution or the gate's check. Only
// what went through Redact, counts and statuses become attributes.

func (a *Agent) startStepSpan(ctx context.Context) (context.Context, trace.Span) {
	n := a.calls + 1
	return tracing.Tracer().Start(ctx, fmt.Sprintf("step %d", n), trace.WithAttributes(tracing.Step.Int(n)))
}

// endStepSpan records how the step ended: an exit, a format error, a
// refused done, or nothing special.
func endStepSpan(span trace.Span, err error) {
	defer span.End()
	var f *interruption
	if !errors.As(err, &f) {
		tracing.Fail(span, err)
		return
	}
	for _, m := range f.msgs {
		if m.Meta == nil {
			continue
		}
		switch {
		case m.Role == model.RoleExit:
			span.SetAttributes(tracing.ExitStatus.String(string(m.Meta.ExitStatus)))
			if m.Meta.ExitStatus == ModelError || m.Meta.ExitStatus == EnvironmentError {
				span.SetStatus(codes.Error, firstLine(m.Content))
			}
		case m.Meta.InterruptType == "FormatError":
			span.SetAttributes(tracing.FormatError.Bool(true))
		}
	}
}

func (a *Agent) startToolSpan(ctx context.Context, action model.Action) (context.Context, trace.Span) {
	code := action.Code
	if a.Redact != nil {
		code = a.Redact(code)
	}
	return tracing.Tracer().Start(ctx, tracing.OpTool+" "+a.kind.Field, trace.WithAttributes(
		tracing.GenAIOperation.String(tracing.OpTool),
		tracing.GenAIToolName.String(a.kind.Field),
		tracing.GenAIToolType.String("function"),
		tracing.Step.Int(a.calls),
		tracing.Command.String(tracing.Cut(code, tracing.MaxCommand)),
	))
}

func endToolSpan(span trace.Span, obs env.Observation, err error) {
	defer span.End()
	if err != nil {
		tracing.Fail(span, err)
		return
	}
	span.SetAttributes(tracing.Outcome.String(outcome(obs)))
	if !obs.Success {
		span.SetStatus(codes.Error, outcome(obs))
	}
}

func (a *Agent) startGateSpan(ctx context.Context) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, tracing.OpTool+" gate", trace.WithAttributes(
		tracing.GenAIOperation.String(tracing.OpTool),
		tracing.GenAIToolName.String("gate"),
		tracing.Step.Int(a.calls),
		tracing.Done.Bool(true),
	))
}

func endGateSpan(span trace.Span, v gate.Verdict, err error) {
	defer span.End()
	span.SetAttributes(tracing.GatePass.Bool(v.Pass && err == nil))
	if v.Label != nil {
		span.SetAttributes(tracing.GateLabel.Int(*v.Label))
	}
	tracing.Fail(span, err)
}
