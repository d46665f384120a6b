package model

import (
	"context"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"wright/internal/tracing"
)

// tracedClient makes each call a span of OpenTelemetry's GenAI kind
// ("chat <model>"), a child of whatever span the caller's context holds:
// the step for the agent's calls, the gate or the run for the judge's.
type tracedClient struct {
	next  Client
	attrs []tracing.KeyValue
	name  string
}

// traced wraps c. With tracing off the span is OpenTelemetry's no-op, so
// the wrapper costs a few allocations per call.
func traced(c Client, cfg Config) Client {
	provider, server := providerOf(cfg.API).TraceName, ""
	if strings.HasPrefix(cfg.Name, ReplayPrefix) {
		provider = "replay"
	} else if u, err := url.Parse(ResolveBaseURL(cfg.API, cfg.BaseURL)); err == nil {
		server = u.Hostname()
	}
	output := "json"
	if cfg.ResponseFormat == FormatNone {
		output = "text"
	}
	name := cfg.Name
	if provider == "replay" {
		// A recording's path is not a model name.
		name = "replay"
	}
	attrs := []tracing.KeyValue{
		tracing.GenAIOperation.String(tracing.OpChat),
		tracing.GenAIProvider.String(provider),
		tracing.GenAIRequestModel.String(name),
		tracing.GenAIOutputType.String(output),
	}
	if server != "" {
		attrs = append(attrs, tracing.ServerAddress.String(server))
	}
	return &tracedClient{next: c, attrs: attrs, name: name}
}

func (c *tracedClient) Complete(ctx context.Context, messages []Message) (Reply, error) {
	ctx, span := tracing.Tracer().Start(ctx, tracing.OpChat+" "+c.name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(c.attrs...))
	defer span.End()
	reply, err := c.next.Complete(ctx, messages)
	if err != nil {
		tracing.Fail(span, err)
		return reply, err
	}
	span.SetAttributes(
		tracing.GenAIInputTokens.Int(reply.Usage.PromptTokens),
		tracing.GenAIOutputTokens.Int(reply.Usage.CompletionTokens),
		tracing.GenAICachedTokens.Int(reply.Usage.CachedTokens),
		tracing.Cost.Float64(reply.Usage.Cost),
	)
	if reply.FinishReason != "" {
		span.SetAttributes(tracing.GenAIFinishReasons.StringSlice([]string{reply.FinishReason}))
	}
	return reply, nil
}
