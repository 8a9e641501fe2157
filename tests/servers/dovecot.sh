#!/usr/bin/env bash
# A throw-away Dovecot (IMAP + LMTP) on 127.0.0.1 for the mail tests and benchmarks.
#
#   dovecot.sh start DIR IMAP_PORT LMTP_PORT [USER...]   (users default to: judge player; domain example.test)
#   dovecot.sh stop  DIR
# With IMAPS_PORT, SSL_CERT and SSL_KEY in the environment it also listens with implicit TLS.
# With IMAP_CAPABILITY it advertises exactly that list (before and after login) instead of its own,
# e.g. without MOVE to play an older server; the commands themselves still work.
#
# Needs the Debian packages dovecot-imapd and dovecot-lmtpd. Every user's password is "secret".
# DIR must be traversable by the unprivileged dovecot/dovenull users: not pytest's tmp_path
# (its base is mode 0700) but a mkdtemp()'d directory chmod'ed 755.
set -euo pipefail
cmd=$1 dir=$2
if [[ $cmd == stop ]]; then
  [[ -f $dir/master.pid ]] || exit 0
  pid=$(cat "$dir/master.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  exit 0
fi
imap_port=$3 lmtp_port=$4
shift 4
users=("$@")
[[ ${#users[@]} -gt 0 ]] || users=(judge player)
mkdir -p "$dir"/{run,state,home}
chmod 755 "$dir"
if [[ $(id -u) == 0 ]]; then
  # Dovecot refuses uid 0 for mail users: as root the package's dovecot user owns the mail
  muid=$(id -u dovecot) mgid=$(id -g dovecot)
  accounts="default_internal_user = dovecot
default_login_user = dovenull"
else
  muid=$(id -u) mgid=$(id -g)
  accounts="default_internal_user = $(id -un)
default_login_user = $(id -un)
default_internal_group = $(id -gn)"
fi
: > "$dir/passwd"
for u in "${users[@]}"; do
  echo "$u@example.test:{PLAIN}secret:$muid:$mgid::$dir/home/$u" >> "$dir/passwd"
  mkdir -p "$dir/home/$u"
done
chown -R "$muid:$mgid" "$dir/home"
# implicit TLS on IMAPS_PORT when SSL_CERT and SSL_KEY (PEM files) are given
ssl_conf="ssl = no"
if [[ -n ${SSL_CERT:-} ]]; then
  ssl_conf="ssl = yes
ssl_cert = <$SSL_CERT
ssl_key = <$SSL_KEY"
fi
cap_conf=""
[[ -z ${IMAP_CAPABILITY:-} ]] || cap_conf="imap_capability = $IMAP_CAPABILITY"
cat > "$dir/dovecot.conf" <<CONF
# standalone test configuration; /etc/dovecot is not read
base_dir = $dir/run
state_dir = $dir/state
instance_name = judge-test-$imap_port
log_path = $dir/dovecot.log
info_log_path = $dir/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
$ssl_conf
disable_plaintext_auth = no
auth_mechanisms = plain login
$accounts
first_valid_uid = $muid
mail_location = maildir:~/Maildir
# a test server: speed over durability of the test mail itself
mail_fsync = never
mail_max_userip_connections = 200
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
$cap_conf
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $dir/passwd
}
userdb {
  driver = passwd-file
  args = username_format=%u $dir/passwd
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = $imap_port
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${IMAPS_PORT:-0}
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $lmtp_port
  }
}
service anvil {
  chroot =
}
CONF
# Dovecot daemonizes; its stdio goes to files so a caller capturing output does not wait forever
/usr/sbin/dovecot -c "$dir/dovecot.conf" </dev/null >>"$dir/dovecot.stdio.log" 2>&1
for _ in $(seq 200); do
  if [[ -s $dir/run/master.pid ]] && (exec 3<>/dev/tcp/127.0.0.1/$imap_port) 2>/dev/null \
     && (exec 3<>/dev/tcp/127.0.0.1/$lmtp_port) 2>/dev/null; then
    cp "$dir/run/master.pid" "$dir/master.pid"
    exit 0
  fi
  sleep 0.05
done
echo "dovecot did not open ports $imap_port/$lmtp_port; see $dir/dovecot.log" >&2
exit 1
