package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
)

// checkReport is what check says about one pod.
type checkReport struct {
	Kind           string `json:"kind"`
	KubeletVersion string `json:"kubeletVersion"`
	Pod            string `json:"pod"`
	From           string `json:"from"`
	// Verdict is "consistent", "inconsistent" or "unchecked" (no kubelet
	// has written the status).
	Verdict       string               `json:"verdict"`
	Phase         v1.PodPhase          `json:"phase"`
	KubectlStatus string               `json:"kubectlStatus"`
	Mismatches    []podstatus.Mismatch `json:"mismatches,omitempty"`
	// TakenAsGiven are the parts of the status check reads as they are
	// (see takenAsGiven).
	TakenAsGiven []string `json:"takenAsGiven,omitempty"`
	// Warnings name the features of the pod this kubelet does not honour
	// because their gate is off (podactions.GatesOff).
	Warnings []string `json:"warnings,omitempty"`
}

func runCheck(e *env) int {
	fs := newFlagSet(e, "check", "-f FILE|- [--kubelet-version 1.37] [--gate Name=bool]... [-o text|json|yaml]")
	file := fs.String("f", "", "pods with their status: kubectl get pod -o yaml (or -o json), a List, or a simulator's output; - for standard input")
	gates := addGateFlags(fs)
	out := fs.String("o", "text", "output: text, json or yaml")
	if code := parseFlags(e, fs); code >= 0 {
		return code
	}
	if *file == "" {
		fmt.Fprintln(e.stderr, "kubeletlogic check: -f FILE is required (- for standard input)")
		return exitUsage
	}
	if *out != "text" && *out != "json" && *out != "yaml" {
		fmt.Fprintf(e.stderr, "kubeletlogic check: -o %q: want text, json or yaml\n", *out)
		return exitUsage
	}
	set, err := gates.set()
	if err != nil {
		fmt.Fprintf(e.stderr, "kubeletlogic check: %v\n", err)
		return exitBadInput
	}
	data, name, err := readSource(e, *file)
	if err != nil {
		return inputFailed(e, "check", err)
	}
	pods, err := readPodsNoting(e, "check", data, name)
	if err != nil {
		return inputFailed(e, "check", err)
	}
	code := exitOK
	var reports []checkReport
	for _, lp := range pods {
		r := check(lp, set)
		if r.Verdict == "inconsistent" {
			code = exitInconsistent
		}
		reports = append(reports, r)
	}
	if *out != "text" {
		if err := writeMachine(e.stdout, *out, reports); err != nil {
			fmt.Fprintf(e.stderr, "kubeletlogic check: %v\n", err)
			return exitBadInput
		}
		return code
	}
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "Pod %s, from %s\n", r.Pod, r.From)
		for _, w := range r.Warnings {
			fmt.Fprintf(e.stdout, "warning: %s\n", w)
		}
		switch r.Verdict {
		case "unchecked":
			fmt.Fprintln(e.stdout, "nothing to check: the status holds no container status, so no kubelet has written it")
			fmt.Fprintln(e.stdout, "(the API server, the scheduler, or a kubelet rejecting the pod at admission wrote it)")
		case "consistent":
			fmt.Fprintf(e.stdout, "consistent: a kubelet %s could have written this status for this spec\n", r.KubeletVersion)
			fmt.Fprintf(e.stdout, "(phase %s, kubectl STATUS %s), with the parts below taken as given\n", r.Phase, r.KubectlStatus)
		default:
			n := len(r.Mismatches)
			word := "fields"
			if n == 1 {
				word = "field"
			}
			fmt.Fprintf(e.stdout, "inconsistent: %d %s that no kubelet %s writes for this spec and these container states\n", n, word, r.KubeletVersion)
			fmt.Fprintln(e.stdout, "(- what the status has, + what a kubelet writes)")
			for _, m := range r.Mismatches {
				fmt.Fprintln(e.stdout)
				fmt.Fprint(e.stdout, m.String())
			}
		}
		if len(r.TakenAsGiven) > 0 {
			fmt.Fprintln(e.stdout, "\ntaken as given (the API status does not show the runtime; explain --runtime FILE reads it):")
			for _, g := range r.TakenAsGiven {
				fmt.Fprintf(e.stdout, "  - %s\n", g)
			}
		}
	}
	return code
}

func check(lp loadedPod, set features.Set) checkReport {
	pod := lp.pod
	r := checkReport{Kind: "CheckReport", KubeletVersion: set.Version().String(), Pod: pod.Name, From: lp.from,
		Phase: pod.Status.Phase}
	if pod.Namespace != "" {
		r.Pod = pod.Namespace + "/" + pod.Name
	}
	r.Warnings = gateWarnings(pod, set)
	if !podstatus.KubeletWrote(&pod.Status) {
		r.Verdict = "unchecked"
		return r
	}
	terminal := pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
	r.Mismatches = podstatus.Check(pod, podstatus.RecomputeOptions{Features: set, PodIsTerminal: terminal, FromAPI: fromAPI(pod)})
	rec := podstatus.Recompute(pod, podstatus.RecomputeOptions{Features: set, PodIsTerminal: terminal})
	r.KubectlStatus = rec.KubectlStatus
	r.TakenAsGiven = takenAsGiven(pod, set, rec, terminal)
	if fromAPI(pod) && podstatus.HeldBack(pod, rec) {
		r.TakenAsGiven = append(r.TakenAsGiven, fmt.Sprintf("phase %s where the kubelet computes %s: taken as held back by the status manager, which writes a terminal phase (with its reason and message) only once the pod's containers and sandbox have stopped (mergePodStatus); the conditions and container statuses are already the new ones", pod.Status.Phase, rec.Phase.Phase))
	}
	r.Verdict = "consistent"
	if len(r.Mismatches) > 0 {
		r.Verdict = "inconsistent"
	}
	return r
}

// fromAPI says whether pod's status is the API object's, which the status
// manager wrote (podstatus.RecomputeOptions.FromAPI): every pod except the
// kubelet's own copy of a static pod (its /pods endpoint: config.source
// file or http, no kubernetes.io/config.mirror annotation), whose status
// is the status manager's cache. A mirror pod's status went through the
// API like any other.
func fromAPI(pod *v1.Pod) bool {
	src := pod.Annotations["kubernetes.io/config.source"]
	_, mirror := pod.Annotations["kubernetes.io/config.mirror"]
	return !((src == "file" || src == "http") && !mirror)
}
