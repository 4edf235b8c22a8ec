// Command kubeletlogic-node runs the pods of fake nodes on a real
// kube-apiserver as a kubelet v1.37.2 would run them: status patches,
// Events, restarts, crash-loop back-off, probes, graceful deletion.
//
// In KWOK mode (the default) KWOK keeps the nodes (run kwok with its node
// stages only) and kubeletlogic-node drives every pod bound to a node that
// matches --node-selector. In standalone mode it registers --nodes nodes
// itself and keeps them Ready (for an API server with no KWOK, such as
// envtest). Run it with --help for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/node"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

const usageHead = `kubeletlogic-node runs the pods of fake nodes on a real Kubernetes API server
as a kubelet v1.37.2 would: it writes their status (phase, conditions,
container states, restart counts, pod IPs), the kubelet's Events, restarts
with crash-loop back-off, and the final delete. What each pod's containers do
comes from the pod's annotation kubeletlogic.io/script (see node/README.md);
without it a Job's pod exits 0 after --job-run-time and other pods run until
deleted.

Modes:
  --mode kwok        KWOK keeps the nodes (start kwok with its node stages
                     only, so it writes nothing to pods); kubeletlogic-node
                     drives every pod bound to a node whose annotations match
                     --node-selector (and labels --node-label-selector).
                     Pods on other nodes are never touched.
  --mode standalone  kubeletlogic-node registers --nodes nodes itself, named
                     <node-prefix>-0, -1, ..., keeps them Ready with a lease
                     as a kubelet does, and drives their pods. For API
                     servers with no KWOK (envtest).

Connection: --kubeconfig if given; else, inside a pod, the in-cluster
config; else $KUBECONFIG or ~/.kube/config, as kubectl reads them.

Logs go to stderr. SIGINT or SIGTERM stops it cleanly (nodes and pods are
left as they are).

Examples:
  kubeletlogic-node --mode kwok --kubeconfig ~/.kube/config
  kubeletlogic-node --mode standalone --nodes 3 --node-prefix fake

Flags:
`

// config is the parsed command line.
type config struct {
	kubeconfig    string
	mode          string
	nodes         int
	nodePrefix    string
	nodeSelector  string
	labelSelector string
	version       string
	gates         string
	qps           float64
	burst         int
	jobRunTime    time.Duration
	seed          uint64
}

// modeFlags are the flags that belong to one mode only.
var modeFlags = map[string]string{
	"nodes": "standalone", "node-prefix": "standalone",
	"node-selector": "kwok", "node-label-selector": "kwok",
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("kubeletlogic-node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "path to a kubeconfig file (default: in-cluster config, else $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&c.mode, "mode", "kwok", "kwok: drive the pods of KWOK's nodes; standalone: register nodes and drive their pods")
	fs.IntVar(&c.nodes, "nodes", 1, "standalone mode: how many nodes to register")
	fs.StringVar(&c.nodePrefix, "node-prefix", "kubeletlogic", "standalone mode: node name prefix (nodes are <prefix>-0, <prefix>-1, ...)")
	fs.StringVar(&c.nodeSelector, "node-selector", node.DefaultKwokNodeSelector,
		"kwok mode: annotation selector of the nodes to drive, as kwok's --manage-nodes-with-annotation-selector (label selector syntax)")
	fs.StringVar(&c.labelSelector, "node-label-selector", "", "kwok mode: label selector the nodes must match too, as kwok's --manage-nodes-with-label-selector")
	fs.StringVar(&c.version, "kubelet-version", features.V1_37_2.String(), "kubelet version modelled: "+versions())
	fs.StringVar(&c.gates, "feature-gates", "", "kubelet feature gates, as the kubelet's --feature-gates (A=true,B=false)")
	fs.Float64Var(&c.qps, "qps", 50, "API requests per second (the client's rate limiter and each node's pod status writer's; the kubelet's kubeAPIQPS default)")
	fs.IntVar(&c.burst, "burst", 100, "API request burst (the client's and each status writer's; the kubelet's kubeAPIBurst default)")
	fs.DurationVar(&c.jobRunTime, "job-run-time", node.DefaultJobRunTime, "how long a Job's pod's containers run before exiting 0 when its script does not say")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the kubelet's random choices (back-off jitter, probe start)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (all settings are flags; see --help)", fs.Arg(0))
	}
	if c.mode != "kwok" && c.mode != "standalone" {
		return c, fmt.Errorf("--mode %q: want kwok or standalone", c.mode)
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if m, ok := modeFlags[f.Name]; ok && m != c.mode && err == nil {
			err = fmt.Errorf("--%s is a %s-mode flag; the mode is %s", f.Name, m, c.mode)
		}
	})
	if err != nil {
		return c, err
	}
	if c.mode == "kwok" && c.nodeSelector == "" && c.labelSelector == "" {
		return c, errors.New("--node-selector and --node-label-selector are both empty: say which nodes to drive")
	}
	if c.nodes < 1 {
		return c, fmt.Errorf("--nodes %d: want at least 1", c.nodes)
	}
	if c.qps <= 0 || c.burst < 1 {
		return c, fmt.Errorf("--qps %g --burst %d: want a positive rate and a burst of at least 1", c.qps, c.burst)
	}
	if c.jobRunTime <= 0 {
		return c, fmt.Errorf("--job-run-time %s: want a positive duration", c.jobRunTime)
	}
	return c, nil
}

func versions() string {
	var vs []string
	for _, v := range features.Versions() {
		vs = append(vs, v.String())
	}
	return strings.Join(vs, ", ")
}

// restConfig finds the API server: --kubeconfig, else in-cluster, else
// kubectl's default loading rules.
func restConfig(path string) (*rest.Config, string, error) {
	if path != "" {
		c, err := clientcmd.BuildConfigFromFlags("", path)
		return c, "kubeconfig " + path, err
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		c, err := rest.InClusterConfig()
		return c, "in-cluster config", err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	c, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("no --kubeconfig, not in a pod, and $KUBECONFIG or ~/.kube/config: %w", err)
	}
	return c, "kubeconfig " + strings.Join(rules.Precedence, ":"), nil
}

// run is the command: it returns the exit code (0 after a clean stop, 1 on
// an error, 2 on bad flags).
func run(ctx context.Context, args []string, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	logger := log.New(stderr, "kubeletlogic-node: ", log.LstdFlags|log.Lmicroseconds)
	if err != nil {
		logger.Print(err)
		return 2
	}
	v, err := features.ParseVersion(c.version)
	if err != nil {
		logger.Printf("--kubelet-version: %v", err)
		return 2
	}
	fset, err := features.ParseFor(v, c.gates)
	if err != nil {
		logger.Printf("--feature-gates: %v", err)
		return 2
	}
	rc, from, err := restConfig(c.kubeconfig)
	if err != nil {
		logger.Print(err)
		return 1
	}
	rc.QPS, rc.Burst = float32(c.qps), c.burst
	rc.UserAgent = "kubeletlogic-node"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		logger.Print(err)
		return 1
	}
	sv, err := client.Discovery().ServerVersion()
	if err != nil {
		logger.Printf("API server %s (%s): %v", rc.Host, from, err)
		return 1
	}
	o := c.options(fset, logger.Printf)
	type runner interface{ Run(context.Context) error }
	var r runner
	switch c.mode {
	case "kwok":
		r, err = node.NewKwok(client, node.KwokSelector{Annotations: c.nodeSelector, Labels: c.labelSelector}, o)
		if err == nil {
			logger.Printf("kwok mode: driving the pods of nodes with annotations %q, labels %q", c.nodeSelector, c.labelSelector)
		}
	case "standalone":
		var specs []node.NodeSpec
		specs, err = node.Numbered(c.nodePrefix, c.nodes)
		if err == nil {
			r, err = node.NewStandalone(client, specs, o)
		}
		if err == nil {
			logger.Printf("standalone mode: registering %d nodes %s-0 ... %s-%d", c.nodes, c.nodePrefix, c.nodePrefix, c.nodes-1)
		}
	}
	if err != nil {
		logger.Print(err)
		return 2
	}
	logger.Printf("API server %s (%s, %s); kubelet %s; qps %g, burst %d", rc.Host, from, sv.GitVersion, fset.Version(), c.qps, c.burst)
	if err := r.Run(ctx); err != nil {
		logger.Print(err)
		return 1
	}
	logger.Print("stopped")
	return 0
}

// options are the node.Options the flags give: the kubelet version's
// gates, the pods' defaults, and --qps/--burst for each node's pod status
// writer as well as for the client.
func (c config) options(fset features.Set, logf func(string, ...any)) node.Options {
	return node.Options{
		Features: fset,
		Pods:     node.PodOptions{JobRunTime: c.jobRunTime, Seed: c.seed},
		QPS:      float32(c.qps),
		Burst:    c.burst,
		Logf:     logf,
	}
}
