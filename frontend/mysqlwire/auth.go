package mysqlwire

import (
	"encoding/json"
	"net"

	"vitess.io/vitess/go/mysql"

	"github.com/shoaldb/shoal/config"
	"github.com/shoaldb/shoal/sqlerr"
)

// Client accounts.
//
// Every configured account logs in with its own plugin, as in MySQL:
// mysql_native_password or caching_sha2_password. Passwords are checked by
// vitess' static auth server (constant-time, never logged) through the two
// plugins' challenge-response exchanges; an account is only accepted by
// its own plugin, so a caching_sha2_password account cannot log in through
// the weaker mysql_native_password exchange. A client that starts with the
// other plugin gets an auth switch. The handshake offers
// caching_sha2_password when every account uses it, else
// mysql_native_password.
//
// caching_sha2_password: the server holds each password in clear, so every
// login is the plugin's "fast" path (a SHA-256 scramble of the server's
// nonce) and never its "full" path, which sends the password itself and
// needs TLS. vitess' plugin accepts users on TLS (or unix socket)
// connections only, to keep the full path safe; since it is never taken
// here, the fast path is also offered on plain TCP, as MySQL does once
// its cache is warm.
//
// require_secure_transport is checked before any password: a client that
// did not switch to TLS gets 3159, as from MySQL.

// accounts is the coordinator's mysql.AuthServer.
type accounts struct {
	store      *mysql.AuthServerStatic
	plugins    map[string]string // account → plugin
	def        mysql.AuthMethodDescription
	methods    []mysql.AuthMethod
	requireTLS bool
}

func newAccounts(users []config.User, requireTLS bool) (*accounts, error) {
	entries := map[string][]*mysql.AuthServerStaticEntry{}
	a := &accounts{plugins: map[string]string{}, def: mysql.CachingSha2Password, requireTLS: requireTLS}
	for _, u := range users {
		entries[u.Name] = append(entries[u.Name], &mysql.AuthServerStaticEntry{Password: u.Password})
		plugin := u.Plugin
		if plugin == "" {
			plugin = config.PluginNative
		}
		a.plugins[u.Name] = plugin
		if plugin != config.PluginCachingSHA2 {
			a.def = mysql.MysqlNativePassword
		}
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	// No file: vitess installs no reload signal handler.
	a.store = mysql.NewAuthServerStatic("", string(b), 0)
	a.methods = []mysql.AuthMethod{
		&accountMethod{AuthMethod: mysql.NewSha2CachingAuthMethod(a.store, a.store, pluginUsers{a, config.PluginCachingSHA2}), a: a, plugin: config.PluginCachingSHA2},
		&accountMethod{AuthMethod: mysql.NewMysqlNativeAuthMethod(a.store, pluginUsers{a, config.PluginNative}), a: a, plugin: config.PluginNative},
	}
	return a, nil
}

// AuthMethods is part of mysql.AuthServer.
func (a *accounts) AuthMethods() []mysql.AuthMethod { return a.methods }

// DefaultAuthMethodDescription is part of mysql.AuthServer: the plugin
// named in the handshake.
func (a *accounts) DefaultAuthMethodDescription() mysql.AuthMethodDescription { return a.def }

// handles reports whether plugin may authenticate user. Unknown accounts
// go to the handshake's plugin, whose password check refuses them with
// 1045 like a wrong password: the exchange says nothing about which
// accounts exist.
func (a *accounts) handles(plugin, user string) bool {
	p, ok := a.plugins[user]
	if !ok {
		return plugin == string(a.def)
	}
	return p == plugin
}

// pluginUsers is the mysql.UserValidator of one plugin.
type pluginUsers struct {
	a      *accounts
	plugin string
}

func (v pluginUsers) HandleUser(user string) bool { return v.a.handles(v.plugin, user) }

// accountMethod is one of vitess' plugins with the account's plugin as the
// only condition for handling a user, and require_secure_transport
// checked before the exchange.
type accountMethod struct {
	mysql.AuthMethod
	a      *accounts
	plugin string
}

func (m *accountMethod) HandleUser(_ *mysql.Conn, user string) bool {
	return m.a.handles(m.plugin, user)
}

func (m *accountMethod) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, remote net.Addr) (mysql.Getter, error) {
	if m.a.requireTLS && !c.TLSEnabled() {
		return nil, errInsecureTransport()
	}
	return m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, remote)
}

func errInsecureTransport() error {
	return sqlerr.New(sqlerr.ErrInsecureTransport, "HY000",
		"Connections using insecure transport are prohibited while --require_secure_transport=ON.")
}
