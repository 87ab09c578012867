# Loads a Homebrew formula as brew does (the file defines a Formula
# subclass named after the file) against a stand-in for Homebrew's Formula
# DSL, runs its install and test blocks with every command recorded rather
# than run, and prints what it found as JSON: packaging's Go test checks it
# where brew is not installed.
#
#   ruby formula_check.rb PATH/TO/Formula/herald.rb PREFIX
require "json"
require "pathname"

$recorded = []

class Pathname
  # bin.install "herald"
  def install(*sources)
    $recorded << ["install", to_s, *sources.flatten.map(&:to_s)]
  end
end

class Formula
  class << self
    def spec
      @spec ||= {}
    end

    %i[desc homepage url sha256 license version].each do |field|
      define_method(field) { |value| spec[field] = value }
    end

    def depends_on(dep)
      (spec[:depends_on] ||= []) << dep
    end

    def service(&block)
      spec[:service] = !block.nil?
    end

    # `test do ... end` in the class body, as in brew.
    def test(&block)
      define_method(:test, &block)
    end
  end

  def initialize(prefix)
    @prefix = Pathname(prefix)
  end

  # brew takes a version from the URL's file name when none is given.
  def version
    self.class.spec[:version] ||
      File.basename(self.class.spec[:url].to_s)[/-(\d+(?:\.\d+)+)\.(?:tar\.gz|tgz|zip)\z/, 1] ||
      raise("brew cannot tell the version: give one, or a URL ending in -X.Y.Z.tar.gz")
  end

  def name
    self.class.name.downcase
  end

  def bin
    @prefix/"bin"
  end

  alias opt_bin bin

  def std_go_args(output: bin/name, ldflags: nil, gcflags: nil, tags: nil)
    args = ["-trimpath", "-o=#{output}"]
    args << "-tags=#{Array(tags).join(" ")}" if tags
    args << "-ldflags=#{Array(ldflags).join(" ")}" if ldflags
    args << "-gcflags=#{Array(gcflags).join(" ")}" if gcflags
    args
  end

  def system(*args)
    $recorded << args.flatten.map(&:to_s)
    true
  end

  def shell_output(cmd, _status = 0)
    $recorded << ["shell_output", cmd.to_s]
    "" # what the command printed is not known here: the assertion is recorded
  end

  def assert_match(expected, _actual)
    $recorded << ["assert_match", expected.to_s]
  end
end

path, prefix = ARGV
# Formulary.class_s: the class a formula file must define.
class_name = File.basename(path, ".rb").capitalize.gsub(/[-_.\s]([a-zA-Z0-9])/) { Regexp.last_match(1).upcase }.tr("+", "x")
load path
klass = Object.const_get(class_name)
raise "#{class_name} is not a Formula" unless klass < Formula

formula = klass.new(prefix)
report = klass.spec.merge(class: class_name, version: formula.version.to_s, bin: formula.bin.to_s)
%i[install test].each do |phase|
  raise "the formula has no #{phase} block" unless klass.method_defined?(phase, false)

  $recorded = []
  formula.public_send(phase)
  report[phase] = $recorded
end
puts JSON.generate(report)
