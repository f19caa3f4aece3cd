# frozen_string_literal: true
#
# Loaded into the program's Ruby (RUBYOPT) before the program itself: it opens the debug gem's
# DAP server (rdbg's `debug/open`, on the UNIX socket the debugger names in
# RUBY_DEBUG_SOCK_PATH) and completes the requests debug 1.4.0 leaves undone:
# - `setBreakpoints` replaces the file's breakpoints (1.4.0 only ever adds, so a breakpoint
#   could not be removed or its condition changed), and takes a `hitCondition`;
# - `setFunctionBreakpoints` sets `Class#method` and `Class.method` breakpoints (1.4.0 answers
#   without setting any), pending until the class or method is defined;
# - `setExceptionBreakpoints` stops on every raised exception (`raised`) or on the classes that
#   `exceptionOptions` name (`catch ArgumentError`);
# - `launch` tells the program's pid (`process`), and the end tells its exit status (`exited`,
#   `terminated`), where 1.4.0 only closes the connection;
# - `evaluate` fails on an expression that raises, where 1.4.0 answers with the exception as
#   the value.

# `bundle exec` runs Bundler's own Ruby first, which then runs the program's: only the program
# opens the debugger.
return if File.basename($PROGRAM_NAME).start_with?('bundle')

require 'debug/session'
return unless defined?(DEBUGGER__)
require 'debug/server_dap'

module DEBUGGER__
  # The hit counts of breakpoints that have a hit condition, by breakpoint.
  DAP_HITS = Hash.new(0)

  # Whether the breakpoint `id` stops at this hit under `rule` ("N": from the Nth hit on, ">N",
  # ">=N", "==N", "%N").
  def self.dap_hit?(id, rule)
    hits = (DAP_HITS[id] += 1)
    case rule.strip
    when /\A>=\s*(\d+)\z/ then hits >= $1.to_i
    when /\A>\s*(\d+)\z/ then hits > $1.to_i
    when /\A==?\s*(\d+)\z/ then hits == $1.to_i
    when /\A%\s*(\d+)\z/ then (hits % $1.to_i).zero?
    when /\A(\d+)\z/ then hits >= $1.to_i
    else true
    end
  end

  module UI_DAP
    alias_method :rdbg_recv_request, :recv_request

    # The requests answered here; the rest go on to rdbg's own `process`.
    def recv_request
      loop do
        req = rdbg_recv_request
        return req unless req && dap_extension(req)
      end
    end

    def dap_extension req
      args = req['arguments'] || {}
      case req['command']
      when 'launch'
        @is_attach = false
        send_response req
        send_event 'process', name: $PROGRAM_NAME, systemProcessId: Process.pid,
                              isLocalProcess: true, startMethod: 'launch'
      when 'setBreakpoints'
        send_response req, breakpoints: dap_set_line_breakpoints(args)
      when 'setFunctionBreakpoints'
        send_response req, breakpoints: dap_set_method_breakpoints(args)
      when 'setExceptionBreakpoints'
        send_response req, breakpoints: dap_set_catch_breakpoints(args)
      when 'configurationDone'
        @dap_configured = true
        return false
      else
        return false
      end
      true
    end

    def dap_condition cond, hit_condition
      parts = []
      parts << "(#{cond})" if cond && !cond.strip.empty?
      if hit_condition && !hit_condition.strip.empty?
        @dap_hit_ids = (@dap_hit_ids || 0) + 1
        parts << "::DEBUGGER__.dap_hit?(#{@dap_hit_ids}, #{hit_condition.dump})"
      end
      parts.empty? ? nil : parts.join(' && ')
    end

    def dap_forget bps
      all = SESSION.instance_variable_get(:@bps)
      bps.each{|bp|
        bp.delete
        all.delete(bp.key) if all[bp.key].equal?(bp)
      }
    end

    def dap_add bp
      SESSION.send(:add_bp, bp)
      bp
    end

    def dap_set_line_breakpoints args
      path = args.dig('source', 'path')
      @dap_line_bps ||= {}
      dap_forget(@dap_line_bps.delete(path) || [])
      set = []
      answers = (args['breakpoints'] || []).map{|spec|
        begin
          file = SESSION.send(:resolve_path, path)
          bp = dap_add LineBreakpoint.new(file, spec['line'],
                                          cond: dap_condition(spec['condition'], spec['hitCondition']))
          set << bp
          { verified: true, line: spec['line'] }
        rescue Errno::ENOENT, ArgumentError => e
          { verified: false, message: e.message }
        end
      }
      @dap_line_bps[path] = set
      answers
    end

    def dap_set_method_breakpoints args
      dap_forget(@dap_method_bps || [])
      @dap_method_bps = []
      (args['breakpoints'] || []).map{|spec|
        name = spec['name'].to_s.strip
        klass, op, method =
          if /\A(.+)([\.\#])([^\.\#:]+)\z/ =~ name
            [$1, $2, $3]
          else
            # A bare name is a method of the top level, which Ruby makes Object's.
            ['Object', '#', name]
          end
        cond = dap_condition(spec['condition'], spec['hitCondition'])
        bp = MethodBreakpoint.new(TOPLEVEL_BINDING, klass, op, method, cond: cond)
        pending = nil
        begin
          bp.enable
        rescue Exception => e
          pending = e.message
          METHOD_ADDED_TRACKER.enable
        end
        @dap_method_bps << dap_add(bp)
        if pending
          { verified: false, message: "pending until #{name} is defined (#{pending})" }
        else
          { verified: true }
        end
      }
    end

    def dap_set_catch_breakpoints args
      dap_forget(@dap_catch_bps || [])
      @dap_catch_bps = []
      patterns = []
      patterns << 'Exception' if (args['filters'] || []).include?('raised')
      (args['exceptionOptions'] || []).each{|option|
        last = (option['path'] || []).last
        patterns.concat(last['names'] || []) if last && option['path'].size > 1
      }
      patterns.uniq.map{|pattern|
        @dap_catch_bps << dap_add(CatchBreakpoint.new(pattern))
        { verified: true }
      }
    end

    alias_method :rdbg_event, :event

    # The server's own stops before the program runs are no stops of the program's: the pause
    # it makes as the debugger connects, and the first line's, where the program waits for the
    # debugger (either may come first). Those before `configurationDone` end with its
    # `continue`; the first line's, if it comes after, is continued here.
    def event type, *args
      if %i[suspend_bp suspend_trap].include?(type) && !@dap_configured
        @dap_started = true if type == :suspend_bp && args[1].nil?
        return
      end
      if type == :suspend_bp && args[1].nil? && !@dap_started
        @dap_started = true
        @q_msg << 'c'
        return
      end
      rdbg_event type, *args
    end
  end

  class ThreadClient
    alias_method :rdbg_process_dap, :process_dap
    alias_method :rdbg_variable, :variable

    # Values Ruby writes whole (numbers, Symbols, true, false, nil, Strings) have no parts to
    # open: 1.4.0 gives each a `#class` member, and a String its length and encoding.
    def variable name, obj
      case obj
      when Numeric, Symbol, String, true, false, nil
        { name: name, value: DEBUGGER__.safe_inspect(obj),
          type: obj.class.name || obj.class.to_s, variablesReference: 0 }
      else
        rdbg_variable name, obj
      end
    end

    # An expression that raises is an error, not a value.
    def process_dap args
      type, req, fid, expr, context = args
      return rdbg_process_dap(args) unless type == :evaluate && %w[repl watch].include?(context)

      frame = @target_frames[fid]
      b = frame&.binding
      unless b
        return event! :dap_result, :evaluate, req, message: 'this frame cannot evaluate', tid: id
      end
      begin
        result = b.eval(expr.to_s, '(debugger)')
      rescue Exception => e
        return event! :dap_result, :evaluate, req, message: "#{e.class}: #{e.message}", tid: id
      end
      event! :dap_result, :evaluate, req, message: nil, tid: id, **evaluate_result(result)
    end
  end
end

require 'debug/open'

# The exit status, which 1.4.0 never tells: the program's at_exit handlers (registered later)
# have run when this one does.
at_exit{
  ui = DEBUGGER__::SESSION.instance_variable_get(:@ui) if defined?(DEBUGGER__::SESSION)
  if ui.respond_to?(:send_event) && ui.instance_variable_get(:@sock)
    code = case $!
           when nil then 0
           when SystemExit then $!.status
           else 1
           end
    begin
      ui.send_event 'exited', exitCode: code
      ui.send_event 'terminated'
    rescue IOError, SystemCallError
      # The debugger is gone: there is no one to tell.
    end
  end
}
