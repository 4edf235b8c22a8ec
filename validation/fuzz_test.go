package validation

import (
	"encoding/json"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// FuzzPod decodes the input as a JSON pod and checks that Pod does not
// panic, gives the same answer twice and leaves the pod unchanged.
func FuzzPod(f *testing.F) {
	seeds := []string{
		`{}`,
		`null`,
		`{"spec":{"containers":[{"name":"app","image":"nginx"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30}}`,
		`{"metadata":{"deletionGracePeriodSeconds":-3},"spec":{"containers":[{"name":""}],"activeDeadlineSeconds":0,"terminationGracePeriodSeconds":-1}}`,
		`{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":5,
		  "initContainers":[
		    {"name":"i","image":"b","restartPolicy":"OnFailure","livenessProbe":{},"lifecycle":{"preStop":{"sleep":{"seconds":9}}},
		     "resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"},{"resourceName":"cpu"}],
		     "restartPolicyRules":[{"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[1,1,0]}},{"action":"X"}]},
		    {"name":"s","image":"b","restartPolicy":"Always","startupProbe":{"exec":{},"grpc":{"port":1},"successThreshold":2,"terminationGracePeriodSeconds":0},
		     "restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"Foo"}}]}],
		  "containers":[{"name":"s","image":" x","restartPolicyRules":[{}],
		    "readinessProbe":{"httpGet":{"port":80},"terminationGracePeriodSeconds":-2,"periodSeconds":-1},
		    "resources":{"requests":{"cpu":"2","hugepages-2Mi":"2Mi","example.com/gpu":"1"},"limits":{"cpu":"1","memory":"-1"}}}],
		  "ephemeralContainers":[{"name":"i","image":"b","ports":[],"resources":{"limits":{}},"lifecycle":{},"restartPolicy":"Never"}],
		  "resources":{"requests":{"storage":"1"},"limits":{"cpu":"-1"},"claims":[]},
		  "os":{"name":"linux"}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var pod *v1.Pod
		if err := json.Unmarshal(data, &pod); err != nil {
			return
		}
		before := pod.DeepCopy()
		first := Pod(pod)
		second := Pod(pod)
		if (first == nil) != (second == nil) || (first != nil && first.Error() != second.Error()) {
			t.Fatalf("Pod gave two answers:\n%v\n---\n%v", first, second)
		}
		if !reflect.DeepEqual(before, pod) {
			t.Fatal("Pod modified its argument")
		}
	})
}
