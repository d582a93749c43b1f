package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kdelta/kdelta/internal/web"
)

func newServeCmd() *cobra.Command {
	var (
		opt web.Options
		loc string
	)
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:PORT] [--store LOC] [--allow-remote]",
		Short: "A read-only dashboard over the store: sets, compare, history, env and profile diffs, with permalinks and JSON",
		Long:  longHelp("serve"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			ln, err := web.Listen(opt)
			if err != nil {
				return err
			}
			defer ln.Close()
			r := newResolver(c.Context(), loc)
			defer r.Close()
			st, err := r.Store()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "kdelta: serving %s read-only at http://%s/ to %s (interrupt to stop)\n", st.Location(), ln.Addr(), web.Readers(ln))
			return web.Serve(c.Context(), ln, st, opt)
		},
	}
	f := c.Flags()
	f.StringVar(&opt.Addr, "addr", web.DefaultAddr, "host:port to listen on (loopback unless --allow-remote)")
	f.BoolVar(&opt.AllowRemote, "allow-remote", false, "allow an --addr that is not loopback: everyone who can reach it reads the whole store")
	f.StringVar(&loc, "store", "", storeUsage)
	return c
}
