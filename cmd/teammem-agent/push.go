package main

import "github.com/teammem/teammem/client/agent"

func init() {
	register(command{Name: "push", Summary: "push the team folder's changes to the server, once",
		Run: oneShot("push", true, (*agent.Engine).Push)})
}
