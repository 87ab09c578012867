# Homebrew formula: builds Herald from its release source tarball.
# packaging/build.sh fills in the tarball's URL and sha256 and the version,
# and commits the result to the tap dist/homebrew-tap (Formula/herald.rb).
class Herald < Formula
  desc "Self-hosted email delivery and audience service in one binary"
  homepage "https://github.com/heraldmail/herald"
  url "@URL@"
  version "@VERSION@" # a development build's only: brew reads a release's from the URL
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
