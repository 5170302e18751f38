// Package prommetrics exports the per-call measurements of an oa2mcp
// server to Prometheus: calls by tool, outcome and error kind, latency,
// upstream statuses, retries and calls in flight, served at /metrics on
// the HTTP transport. A server generated with --metrics wires it in;
// elsewhere pass New(def) as runtime.Options.Metrics.
package prommetrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// prometheusSink exports per-tool calls, latency, upstream statuses,
// retries and calls in flight on its own registry (several servers may
// live in one process).
type prometheusSink struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	statuses *prometheus.CounterVec
	retries  *prometheus.CounterVec
	inflight *prometheus.GaugeVec
	h        http.Handler
}

// New returns the metrics of the server def describes, on a registry of
// their own (several servers may live in one process).
func New(def *runtime.ServerDef) runtime.Metrics {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"server": def.Name}
	p := &prometheusSink{
		reg: reg,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcp_tool_calls_total",
			Help: "Tool calls by tool, outcome (ok, error) and error kind.", ConstLabels: labels}, []string{"tool", "outcome", "kind"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mcp_tool_call_duration_seconds",
			Help: "Tool call latency, upstream retries included.", ConstLabels: labels,
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"tool"}),
		statuses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcp_upstream_responses_total",
			Help: "Upstream HTTP attempts by tool and status (0: no response).", ConstLabels: labels}, []string{"tool", "status"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcp_upstream_retries_total",
			Help: "Automatic upstream retries by tool.", ConstLabels: labels}, []string{"tool"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcp_tool_calls_in_flight",
			Help: "Tool calls in progress.", ConstLabels: labels}, []string{"tool"}),
	}
	reg.MustRegister(p.calls, p.latency, p.statuses, p.retries, p.inflight,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	p.h = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return p
}

func (p *prometheusSink) CallStarted(tool string) { p.inflight.WithLabelValues(tool).Inc() }

func (p *prometheusSink) CallFinished(tool, outcome, kind string, d time.Duration) {
	p.inflight.WithLabelValues(tool).Dec()
	p.calls.WithLabelValues(tool, outcome, kind).Inc()
	p.latency.WithLabelValues(tool).Observe(d.Seconds())
}

func (p *prometheusSink) UpstreamResponse(tool string, status int) {
	p.statuses.WithLabelValues(tool, strconv.Itoa(status)).Inc()
}

func (p *prometheusSink) Retried(tool string) { p.retries.WithLabelValues(tool).Inc() }

func (p *prometheusSink) Handler() http.Handler { return p.h }
