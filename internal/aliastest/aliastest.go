// Package aliastest helps tests check that a function's result shares no
// memory with its arguments: [Mutate] changes every value reachable from a
// pointer, so that a test can mutate a result and compare the arguments
// with copies taken before the call, or mutate the arguments and compare
// the result with one computed from copies.
package aliastest

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	quantityType = reflect.TypeFor[resource.Quantity]()
)

// Mutate changes, through ptr (a non-nil pointer), every exported field,
// slice element and map value reachable from it: strings get a suffix,
// numbers grow by one, booleans flip, times move on by a second,
// quantities become 12345, and every map with string keys gains a key.
// Unexported fields, nil pointers and interfaces are left alone; a
// time.Time and a resource.Quantity are changed whole.
func Mutate(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("aliastest.Mutate: want a non-nil pointer")
	}
	mutate(v.Elem(), map[uintptr]bool{})
}

func mutate(v reflect.Value, seen map[uintptr]bool) {
	switch v.Type() {
	case timeType:
		if v.CanSet() {
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
		}
		return
	case quantityType:
		if v.CanSet() {
			v.Set(reflect.ValueOf(resource.MustParse("12345")))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		mutate(v.Elem(), seen)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				mutate(f, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			mutate(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		et := v.Type().Elem()
		for _, k := range v.MapKeys() {
			nv := reflect.New(et).Elem()
			nv.Set(v.MapIndex(k))
			mutate(nv, seen)
			v.SetMapIndex(k, nv)
		}
		if kt := v.Type().Key(); kt.Kind() == reflect.String {
			v.SetMapIndex(reflect.ValueOf("zz-mutated").Convert(kt), reflect.New(et).Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "#")
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			v.SetUint(v.Uint() + 1)
		}
	case reflect.Float32, reflect.Float64:
		if v.CanSet() {
			v.SetFloat(v.Float() + 1)
		}
	}
}
