// Package tracing exports OpenTelemetry traces of wright's runs: a span per
// run, per step, per model call and per tool execution (a shell command, a
// Python step, the gate and its judge calls), with the GenAI semantic
// conventions' attributes and wright's own.
//
// Spans are made through the global tracer provider. Until Start installs
// one, that provider is OpenTelemetry's no-op, so code that makes spans
// costs next to nothing when tracing is off.
//
// What a span may carry is chosen here, in one place: names, counts,
// statuses and texts that went through the run's redaction. Prompts,
// replies, observations, the API key and secret values never become
// attributes.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of every span wright makes.
const Scope = "wright"

// Tracer is wright's tracer on the global provider.
func Tracer() trace.Tracer { return otel.Tracer(Scope) }

// HeaderVars are the standard variables that carry the exporter's headers.
// They often hold a credential (Langfuse's Basic auth, a vendor's API key),
// so wright treats them as one: they leave its environment block with the
// API keys and never reach the model's processes.
var HeaderVars = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

// Options say where traces go.
type Options struct {
	// Endpoint is `--otel`'s value: an OTLP URL, or "" to take the
	// endpoint from the standard OTEL_EXPORTER_OTLP_* variables, and
	// without them DefaultHTTPEndpoint (or DefaultGRPCEndpoint).
	Endpoint string
	// Requested is set when the user asked for traces (`--otel`); without
	// it, traces are exported only when the environment names an OTLP
	// endpoint or OTEL_TRACES_EXPORTER=otlp, as OpenTelemetry's own SDKs do.
	Requested bool
	// Version is wright's version, recorded as service.version.
	Version string
	// Getenv reads the environment; credentials (the header variables)
	// come through it from wright's keyring. Default os.Getenv.
	Getenv func(string) string
	// Warn receives the exporter's errors, as "wright: warning:" lines.
	// Default os.Stderr.
	Warn io.Writer
}

func (o Options) warn() io.Writer {
	if o.Warn == nil {
		return os.Stderr
	}
	return o.Warn
}

// warnOnce reports the exporter's errors as wright's warnings, each
// distinct message once: a collector that is down fails every export, and
// one line says so.
func warnOnce(w io.Writer) otel.ErrorHandler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			fmt.Fprintln(w, "wright: warning: otel:", msg)
		}
	})
}

func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// Enabled reports whether these options and the environment ask for
// traces. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win.
func (o Options) Enabled() bool {
	if strings.EqualFold(o.getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(o.getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return o.Requested || o.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || o.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Start installs a tracer provider that exports over OTLP (HTTP/protobuf,
// or gRPC when OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says grpc) and returns
// the function that flushes and ends it; call it before the process exits.
// When tracing is not enabled, Start installs nothing and the returned
// function does nothing.
func Start(ctx context.Context, o Options) (shutdown func(context.Context) error, err error) {
	if !o.Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	client, err := o.client()
	if err != nil {
		return nil, err
	}
	exp, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("otel: start the OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", Scope), attribute.String("service.version", o.Version)),
		// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the above.
		resource.WithFromEnv(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("otel: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetErrorHandler(warnOnce(o.warn()))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("otel: flush traces: %w", err)
		}
		return nil
	}, nil
}

// client is the OTLP client the options and environment describe.
func (o Options) client() (otlptrace.Client, error) {
	protocol := o.getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = o.getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	headers, err := o.headers()
	if err != nil {
		return nil, err
	}
	switch protocol {
	case "", "http/protobuf":
		opts := []otlptracehttp.Option{otlptracehttp.WithTimeout(10 * time.Second)}
		if len(headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(headers))
		}
		if u, err := o.endpoint("/v1/traces", DefaultHTTPEndpoint); err != nil {
			return nil, err
		} else if u != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(u))
		}
		return otlptracehttp.NewClient(opts...), nil
	case "grpc":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithTimeout(10 * time.Second)}
		if len(headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(headers))
		}
		if u, err := o.endpoint("", DefaultGRPCEndpoint); err != nil {
			return nil, err
		} else if u != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(u))
		}
		return otlptracegrpc.NewClient(opts...), nil
	default:
		return nil, fmt.Errorf("otel: OTEL_EXPORTER_OTLP_PROTOCOL is %q: use http/protobuf or grpc", protocol)
	}
}

// The collector traces go to when neither --otel=URL nor the environment
// names one: a local collector, over plain HTTP as collectors listen by
// default. (The SDK's own default is https, which a local Jaeger or
// collector does not speak.)
const (
	DefaultHTTPEndpoint = "http://localhost:4318/v1/traces"
	DefaultGRPCEndpoint = "http://localhost:4317"
)

// endpoint is the URL the exporter is given: --otel's, else none when the
// standard variables name one (the SDK reads them itself, with their
// scheme), else the local default.
func (o Options) endpoint(tracesPath, local string) (string, error) {
	if o.Endpoint != "" {
		return endpointURL(o.Endpoint, tracesPath)
	}
	if o.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || o.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		return "", nil
	}
	return local, nil
}

// headers reads the header variables (key=value pairs, comma separated,
// values URL-encoded), the traces-only one winning per key.
func (o Options) headers() (map[string]string, error) {
	out := map[string]string{}
	for _, name := range HeaderVars {
		for _, pair := range strings.Split(o.getenv(name), ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				// The value is a credential: say where, never what.
				return nil, fmt.Errorf("otel: %s holds an entry that is not key=value", name)
			}
			if dec, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
				v = dec
			}
			out[k] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// endpointURL checks --otel's URL and, for HTTP, puts the traces path on a
// bare host ("http://collector:4318" means its /v1/traces, as the
// standard OTEL_EXPORTER_OTLP_ENDPOINT does).
func endpointURL(raw, tracesPath string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("otel: --otel=%s is not an http(s) URL: give the collector's OTLP address, e.g. --otel=http://localhost:4318", raw)
	}
	if tracesPath != "" && (u.Path == "" || u.Path == "/") {
		u.Path = tracesPath
	} else if tracesPath != "" && !strings.HasSuffix(u.Path, tracesPath) {
		// A base path (Langfuse's /api/public/otel) gets the traces path too.
		u.Path = strings.TrimSuffix(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}
