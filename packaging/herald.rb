# Homebrew formula: builds Herald from its release source tarball.
# packaging/build.sh fills in the version and the tarball's sha256.
class Herald < Formula
  desc "Self-hosted email delivery and audience service in one binary"
  homepage "https://github.com/heraldmail/herald"
  url "https://github.com/heraldmail/herald/releases/download/v@VERSION@/herald-@VERSION@.tar.gz"
  sha256 "@SHA256@"
  license "MIT"

  depends_on "go" => :build

  def install
    ENV["CGO_ENABLED"] = "0"
    system "go", "build", *std_go_args(ldflags: "-s -w -X github.com/heraldmail/herald/cli.version=#{version} -X github.com/heraldmail/herald/cli.commit=@COMMIT@")
  end

  service do
    run [opt_bin/"herald", "serve"]
    environment_variables HERALD_DATA_DIR: var/"herald", HERALD_CONFIG: etc/"herald.env"
    keep_alive true
    log_path var/"log/herald.log"
    error_log_path var/"log/herald.log"
  end

  def post_install
    (var/"herald").mkpath
    (etc/"herald.env").write("# Herald settings: HERALD_NAME=value lines; see `herald serve --help`.\n") unless (etc/"herald.env").exist?
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/herald version")
  end
end
