package main

import "github.com/teammem/teammem/client/agent"

func init() {
	register(command{Name: "pull", Summary: "write the server's changes into the team folder, once",
		Run: oneShot("pull", false, (*agent.Engine).Pull)})
}
