# SPDX-License-Identifier: GPL-3.0-or-later
# What lkp-tests does with fpulab's stats, for tests/test_lkp_stats.c:
#
#   ruby tests/lkp_check.rb directions INDEX.yaml < NAMES
#     each stats name (one a line) as "DIRECTION NAME": -1, 1 or none, from
#     the index-perf lines of INDEX.yaml applied as lkp-tests' lib/stats.rb
#     applies etc/index-perf-all.yaml (kpi_stat_direction): each line as
#     /^LINE$/, the first that matches
#   LKP_SRC=... ruby tests/lkp_check.rb lkp-directions < NAMES
#     the same through lkp-tests' own kpi_stat_direction and its
#     etc/index-perf-all.yaml
#   LKP_SRC=... ruby tests/lkp_check.rb expand JOB...
#     "kept JOB" or "dropped JOB" as `lkp run` expands a job
#     (Job2sh#expand_params: its filters, as bin/run-local runs them)
#   LKP_SRC=... ruby tests/lkp_check.rb result-type < NAMES
#     each name as "TYPE NAME": what lkp-tests' TestResultDefinition
#     (etc/test-result-definition.yml) reads it as: pass, fail, skip or none
#   ruby tests/lkp_check.rb stats FILE (.json or .json.gz, as dump-stat wrote it)
#     the stats names in it, one a line

require 'json'
require 'yaml'
require 'zlib'

def names
  $stdin.each_line.map(&:strip).reject(&:empty?)
end

case ARGV.shift
when 'directions'
  index = YAML.load_file(ARGV[0])
  names.each do |stat|
    key = index.keys.find { |i| stat =~ /^#{i}$/ }
    puts "#{key ? index[key] : 'none'} #{stat}"
  end
when 'lkp-directions'
  require "#{ENV.fetch('LKP_SRC')}/lib/stats"
  word = { 'regression' => -1, 'improvement' => 1, 'undefined' => 'none' }
  # a rise of 1%: a regression where lower is better (-1), an improvement where higher is
  names.each { |stat| puts "#{word.fetch(kpi_stat_direction(stat, 1))} #{stat}" }
when 'expand'
  require "#{ENV.fetch('LKP_SRC')}/lib/job2sh"
  out = $stdout
  $stdout = $stderr # what LKP says of a filter (it puts the filter's output)
  ARGV.each do |file|
    kept = Job2sh.new(Job.open(file).to_hash).expand_params
    out.puts "#{kept ? 'kept' : 'dropped'} #{file}"
  rescue Job::ParamError
    out.puts "dropped #{file}"
  end
when 'result-type'
  require "#{ENV.fetch('LKP_SRC')}/lib/test_result_definition"
  definition = TestResultDefinition.new
  names.each { |stat| puts "#{definition.type(stat) || 'none'} #{stat}" }
when 'stats'
  file = ARGV[0]
  text = file.end_with?('.gz') ? Zlib::GzipReader.open(file, &:read) : File.read(file)
  puts JSON.parse(text).keys
else
  warn 'usage: lkp_check.rb directions INDEX.yaml | lkp-directions | expand JOB... | result-type | stats FILE'
  exit 2
end
