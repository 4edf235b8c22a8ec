package apidefaults

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// volumePod holds one volume of each source whose fields the API server
// defaults (SetObjectDefaults_Pod in pkg/apis/core/v1/zz_generated.defaults.go
// of v1.37.2), every defaulted field left out.
func volumePod() *v1.Pod {
	return &v1.Pod{Spec: v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "busybox"}},
		Volumes: []v1.Volume{
			{Name: "rbd", VolumeSource: v1.VolumeSource{RBD: &v1.RBDVolumeSource{CephMonitors: []string{"m"}, RBDImage: "i"}}},
			{Name: "iscsi", VolumeSource: v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "t", IQN: "q"}}},
			{Name: "dapi", VolumeSource: v1.VolumeSource{DownwardAPI: &v1.DownwardAPIVolumeSource{Items: []v1.DownwardAPIVolumeFile{
				{Path: "name", FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}},
				{Path: "cpu", ResourceFieldRef: &v1.ResourceFieldSelector{Resource: "limits.cpu"}},
			}}}},
			{Name: "azure", VolumeSource: v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "u"}}},
			{Name: "scaleio", VolumeSource: v1.VolumeSource{ScaleIO: &v1.ScaleIOVolumeSource{Gateway: "g", System: "s"}}},
			{Name: "eph", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{}}}},
			{Name: "eph-no-template", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
		},
	}}
}

// Each field left out gets the API server's default (the values of the
// generated defaulter and of SetDefaults_DownwardAPIVolumeSource,
// SetDefaults_ObjectFieldSelector, SetDefaults_PersistentVolumeClaimSpec).
func TestVolumeSourceDefaults(t *testing.T) {
	pod := volumePod()
	Pod(pod)
	vs := pod.Spec.Volumes
	if r := vs[0].RBD; r.RBDPool != "rbd" || r.RadosUser != "admin" || r.Keyring != "/etc/ceph/keyring" {
		t.Errorf("rbd: pool %q, user %q, keyring %q; want rbd, admin, /etc/ceph/keyring", r.RBDPool, r.RadosUser, r.Keyring)
	}
	if s := vs[1].ISCSI; s.ISCSIInterface != "default" {
		t.Errorf("iscsi: interface %q, want default", s.ISCSIInterface)
	}
	d := vs[2].DownwardAPI
	if d.DefaultMode == nil || *d.DefaultMode != v1.DownwardAPIVolumeSourceDefaultMode {
		t.Errorf("downwardAPI: defaultMode %v, want %o", d.DefaultMode, v1.DownwardAPIVolumeSourceDefaultMode)
	}
	if d.Items[0].FieldRef.APIVersion != "v1" || d.Items[1].FieldRef != nil {
		t.Errorf("downwardAPI items: %+v, want the fieldRef's apiVersion v1 and no fieldRef added to the other", d.Items)
	}
	a := vs[3].AzureDisk
	if a.CachingMode == nil || *a.CachingMode != v1.AzureDataDiskCachingReadWrite || a.FSType == nil || *a.FSType != "ext4" ||
		a.ReadOnly == nil || *a.ReadOnly || a.Kind == nil || *a.Kind != v1.AzureSharedBlobDisk {
		t.Errorf("azureDisk: %+v, want cachingMode ReadWrite, fsType ext4, readOnly false, kind Shared", a)
	}
	if s := vs[4].ScaleIO; s.StorageMode != "ThinProvisioned" || s.FSType != "xfs" {
		t.Errorf("scaleIO: storageMode %q, fsType %q; want ThinProvisioned, xfs", s.StorageMode, s.FSType)
	}
	if m := vs[5].Ephemeral.VolumeClaimTemplate.Spec.VolumeMode; m == nil || *m != v1.PersistentVolumeFilesystem {
		t.Errorf("ephemeral claim template: volumeMode %v, want Filesystem", m)
	}
	if vs[6].Ephemeral.VolumeClaimTemplate != nil {
		t.Error("an ephemeral volume without a claim template got one")
	}
}

// Each defaulted field that is set is kept as it is.
func TestVolumeSourceSetFieldsKept(t *testing.T) {
	mode := int32(0o400)
	caching, fs, ro, kind := v1.AzureDataDiskCachingNone, "btrfs", true, v1.AzureDedicatedBlobDisk
	block := v1.PersistentVolumeBlock
	pod := volumePod()
	vs := pod.Spec.Volumes
	vs[0].RBD.RBDPool, vs[0].RBD.RadosUser, vs[0].RBD.Keyring = "pool", "user", "/k"
	vs[1].ISCSI.ISCSIInterface = "eth1"
	vs[2].DownwardAPI.DefaultMode = &mode
	vs[2].DownwardAPI.Items[0].FieldRef.APIVersion = "v2"
	vs[3].AzureDisk.CachingMode, vs[3].AzureDisk.FSType, vs[3].AzureDisk.ReadOnly, vs[3].AzureDisk.Kind = &caching, &fs, &ro, &kind
	vs[4].ScaleIO.StorageMode, vs[4].ScaleIO.FSType = "ThickProvisioned", "ext4"
	vs[5].Ephemeral.VolumeClaimTemplate.Spec.VolumeMode = &block
	vs[5].Ephemeral.VolumeClaimTemplate.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
	want := pod.DeepCopy()
	Pod(pod)
	if !reflect.DeepEqual(pod.Spec.Volumes, want.Spec.Volumes) {
		t.Errorf("volumes changed:\n%+v\nwant\n%+v", pod.Spec.Volumes, want.Spec.Volumes)
	}
}

// podIP and podIPs are kept in step (SetDefaults_PodStatus): podIP is
// authoritative when both are set and the first of podIPs differs; when
// they agree, the list (a dual-stack pair) is kept.
func TestPodStatusIPs(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		ips     []string
		wantIP  string
		wantIPs []string
	}{
		{"", nil, "", nil},
		{"10.0.0.1", nil, "10.0.0.1", []string{"10.0.0.1"}},
		{"", []string{"10.0.0.2", "fd00::2"}, "10.0.0.2", []string{"10.0.0.2", "fd00::2"}},
		{"10.0.0.1", []string{"10.0.0.1", "fd00::1"}, "10.0.0.1", []string{"10.0.0.1", "fd00::1"}},
		{"10.0.0.1", []string{"10.0.0.9", "fd00::9"}, "10.0.0.1", []string{"10.0.0.1"}},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
		pod.Status.PodIP = tc.ip
		for _, ip := range tc.ips {
			pod.Status.PodIPs = append(pod.Status.PodIPs, v1.PodIP{IP: ip})
		}
		Pod(pod)
		var got []string
		for _, ip := range pod.Status.PodIPs {
			got = append(got, ip.IP)
		}
		if pod.Status.PodIP != tc.wantIP || !reflect.DeepEqual(got, tc.wantIPs) {
			t.Errorf("podIP %q, podIPs %q: got %q, %q; want %q, %q", tc.ip, tc.ips, pod.Status.PodIP, got, tc.wantIP, tc.wantIPs)
		}
	}
}

// Which first component is a registry domain (splitDockerDomain in
// github.com/distribution/reference, which the kubelet's image parsing
// uses): localhost and a component with an upper-case letter are domains,
// other dot-less components are a Docker Hub namespace. The difference
// shows in the 255-character limit on the repository path, which counts
// the namespace (and the library/ of a single-component name) but not a
// domain.
func TestPullPolicyDomainSplit(t *testing.T) {
	for _, tc := range []struct {
		image string
		want  v1.PullPolicy
	}{
		{"Example/app", v1.PullAlways},                   // upper case: a domain, path "app"
		{"Example/app:1.0", v1.PullIfNotPresent},         // a tag
		{"localhost/" + repeat("a", 255), v1.PullAlways}, // domain localhost, path of 255
		{"localhost/" + repeat("a", 256), v1.PullIfNotPresent},
		{"myorg/" + repeat("a", 249), v1.PullAlways}, // docker.io, path myorg/… of 255
		{"myorg/" + repeat("a", 250), v1.PullIfNotPresent},
		{"Myorg/" + repeat("a", 250), v1.PullAlways}, // a domain: path of 250
		{repeat("a", 247), v1.PullAlways},            // docker.io/library/…: path of 255
		{repeat("a", 248), v1.PullIfNotPresent},
	} {
		if got := pullPolicyFor(tc.image); got != tc.want {
			t.Errorf("pullPolicyFor(%q) = %s, want %s", tc.image, got, tc.want)
		}
	}
}

// The status quantities of every kind of container status are rounded up
// to milli precision (SetDefaults_ResourceList on allocatedResources and
// on resources' limits and requests when resources is set); a status
// without resources keeps none.
func TestStatusQuantitiesRounded(t *testing.T) {
	unrounded := func() v1.ResourceList { return v1.ResourceList{v1.ResourceCPU: resource.MustParse("1.5m")} }
	cs := func() []v1.ContainerStatus {
		return []v1.ContainerStatus{
			{Name: "with", AllocatedResources: unrounded(), Resources: &v1.ResourceRequirements{Limits: unrounded(), Requests: unrounded()}},
			{Name: "without", AllocatedResources: unrounded()},
		}
	}
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses = cs(), cs(), cs()
	Pod(pod)
	want := resource.MustParse("2m")
	for kind, list := range map[string][]v1.ContainerStatus{"init": pod.Status.InitContainerStatuses, "regular": pod.Status.ContainerStatuses, "ephemeral": pod.Status.EphemeralContainerStatuses} {
		for _, s := range list {
			lists := []v1.ResourceList{s.AllocatedResources}
			if s.Name == "with" {
				if s.Resources == nil {
					t.Fatalf("%s %s: resources dropped", kind, s.Name)
				}
				lists = append(lists, s.Resources.Limits, s.Resources.Requests)
			} else if s.Resources != nil {
				t.Errorf("%s %s: resources %+v added", kind, s.Name, s.Resources)
			}
			for _, l := range lists {
				if q := l[v1.ResourceCPU]; q.Cmp(want) != 0 {
					t.Errorf("%s %s: cpu %s, want 1.5m rounded up to 2m", kind, s.Name, q.String())
				}
			}
		}
	}
}
