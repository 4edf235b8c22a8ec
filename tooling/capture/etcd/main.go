// Command etcd runs an embedded single-member etcd on loopback for the
// capture harness (see ../README.md) and node/'s tests (free ports through
// -client-url and -peer-url).
package main

import (
	"flag"
	"log"
	"net/url"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dir := flag.String("data-dir", "/tmp/kl-capture/etcd", "data folder")
	client := flag.String("client-url", "http://127.0.0.1:2379", "URL clients connect to (listen and advertise)")
	peer := flag.String("peer-url", "http://127.0.0.1:2380", "URL of the single member's peer listener")
	flag.Parse()
	cfg := embed.NewConfig()
	cfg.Dir = *dir
	cu, err := url.Parse(*client)
	if err != nil {
		log.Fatal(err)
	}
	pu, err := url.Parse(*peer)
	if err != nil {
		log.Fatal(err)
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = "default=" + pu.String()
	cfg.LogLevel = "warn"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatal(err)
	}
	<-e.Server.ReadyNotify()
	log.Print("etcd ready")
	log.Fatal(<-e.Err())
}
