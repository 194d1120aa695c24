// Command fakeapi runs the fake model API of package watch/fakeapi (Anthropic
// Messages, OpenAI Responses, Gemini) on loopback, for running a real agent
// against a canned reply; see that package for the reply script.
//
//	fakeapi [-addr 127.0.0.1:0] [-reply TEXT | -reply-file FILE] [-log FILE]
//	        [-delay D] [-chunk-delay D] [-dump DIR]
//
// The first line on standard output is the base URL, http://127.0.0.1:PORT.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/ralph-tmux/ralph.tmux/watch/fakeapi"
)

func main() {
	var o fakeapi.Options
	flag.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address (loopback only)")
	flag.StringVar(&o.Reply, "reply", "All tasks complete.\nRALPH_DONE_42", "the reply script")
	flag.StringVar(&o.ReplyFile, "reply-file", "", "read the reply script from this file at every request (overrides -reply)")
	flag.StringVar(&o.Log, "log", "", "append one JSON line per request to this file")
	flag.DurationVar(&o.Delay, "delay", 0, "wait this long before the first text delta (the model 'thinking')")
	flag.DurationVar(&o.ChunkDelay, "chunk-delay", 0, "wait this long between text deltas (one delta per line)")
	flag.StringVar(&o.Dump, "dump", "", "write each model request's body to DIR/N.json, for study")
	flag.Parse()
	s, err := fakeapi.Start(o)
	if err != nil {
		log.Fatalf("fakeapi: %v", err)
	}
	fmt.Println(s.URL)
	os.Stdout.Sync()
	log.Fatal(s.Wait())
}
