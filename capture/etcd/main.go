// Command etcd runs an embedded single-member etcd on loopback for the
// capture harness (see ../README.md).
package main

import (
	"flag"
	"log"
	"net/url"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dir := flag.String("data-dir", "/tmp/kl-capture/etcd", "data folder")
	flag.Parse()
	cfg := embed.NewConfig()
	cfg.Dir = *dir
	cu, _ := url.Parse("http://127.0.0.1:2379")
	pu, _ := url.Parse("http://127.0.0.1:2380")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = "default=http://127.0.0.1:2380"
	cfg.LogLevel = "warn"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatal(err)
	}
	<-e.Server.ReadyNotify()
	log.Print("etcd ready")
	log.Fatal(<-e.Err())
}
